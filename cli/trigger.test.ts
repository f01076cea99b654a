// `swapsim trigger` and `swapsim listen` as a user runs them: real processes against a real `swapsim serve`
// (virtual clock, the app's key, partner screening on), the app's webhook receiver registered.
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acceptedEventIds, startReceiver, type Receiver } from '../scenarios/dsl/webhook-receiver.ts';
import { TRIGGERS } from '../scenarios/library/index.ts';
import { BIN, runSwapsim, startServe, type Served } from '../fake-provider/testing/swapsim-cli.ts';

const KEY = 'sk_cli_trigger_app';
let served: Served;
let app: Receiver;
const receivers: Receiver[] = [];

const api = async (method: string, path: string, body?: unknown): Promise<any> => {
  const res = await fetch(`${served.base_url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${KEY}`,
      'content-type': 'application/json',
      'idempotency-key': `t-${path}-${Math.round(performance.now())}`,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return res.json();
};

beforeAll(async () => {
  served = await startServe(['--port', '0', '--clock', 'virtual', '--api-key', KEY, '--partner-screening']);
  app = await startReceiver();
  receivers.push(app);
  app.secret = (await api('POST', '/webhooks', { url: app.url })).webhook.secret;
});
afterAll(async () => {
  served.child.kill('SIGTERM');
  await served.exited;
  for (const r of receivers) await r.close();
});

describe('swapsim trigger', () => {
  it('--list names every trigger with one line each', async () => {
    const r = await runSwapsim(['trigger', '--list']);
    expect(r.code).toBe(0);
    const lines = r.out.trim().split('\n');
    expect(lines.at(-1)).toBe(`${TRIGGERS.length} triggers (swapsim trigger NAME --api-key KEY)`);
    for (const s of TRIGGERS)
      expect(
        lines.some((l) => l.startsWith(`${s.name} `) && l.includes(s.summary)),
        s.name,
      ).toBe(true);
  });

  it('runs a reorg in your organization: your webhook gets orphaned then reconfirmed; --json has the ids and events', async () => {
    const r = await runSwapsim(['trigger', 'trade-reorg-out-leg', '--base-url', served.base_url, '--api-key', KEY, '--json']);
    expect(r.code, r.err).toBe(0);
    const run = JSON.parse(r.out);
    expect(run).toMatchObject({ kind: 'trigger', name: 'trade-reorg-out-leg', ok: true, clock_mode: 'virtual' });
    const types = run.events.map((e: any) => e.type);
    expect(types).toEqual(expect.arrayContaining(['trade.settled', 'trade.settlement_orphaned', 'trade.settlement_reconfirmed']));
    const accepted = acceptedEventIds(app);
    expect(run.events.filter((e: any) => !accepted.has(e.event_id))).toEqual([]);
    const trade = (await api('GET', `/trades/${run.ids.trade[0]}`)).trade;
    expect(trade.status).toBe('settled');
  });

  it('prints what it did, the ids and the events for a person (partner flag inside the window)', async () => {
    const r = await runSwapsim(['trigger', 'deposit-partner-flagged', '--base-url', served.base_url, '--api-key', KEY]);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/^trigger deposit-partner-flagged in org_\S+ \(virtual clock, run \S+\)/);
    expect(r.out).toMatch(/\nids:\n {2}account +acct_/);
    expect(r.out).toMatch(/deposit\.flagged +acct_\S+ +evt_\S+ +flag_reason=partner_flagged flagged_by=partner/);
    expect(r.out).toMatch(/\nok: deposit-partner-flagged \(\d+ checks passed/);
  });

  it('exits 2 on an unknown name (with suggestions), a scenario-only case, or an unknown key', async () => {
    const unknown = await runSwapsim(['trigger', 'trade-reorg-out', '--base-url', served.base_url, '--api-key', KEY]);
    expect(unknown.code).toBe(2);
    expect(unknown.err).toContain('did you mean: trade-reorg-out-leg');
    const only = await runSwapsim(['trigger', 'webhook-secret-rotation', '--base-url', served.base_url, '--api-key', KEY]);
    expect(only.code).toBe(2);
    expect(only.err).toContain('scenario only');
    const key = await runSwapsim(['trigger', 'trade-exact-in', '--base-url', served.base_url, '--api-key', 'sk_nobody']);
    expect(key.code).toBe(2);
    expect(key.err).toContain('401');
  });

  it("the dashboard's Run (POST /_sim/ui/triggers/{name}/runs) plays it on the server `swapsim serve` started: serve hands it the runner", async () => {
    const orgs = (await (await fetch(`${served.control_url}/organizations`)).json()) as {
      organizations: Array<{ organization_id: string; api_keys: string[] }>;
    };
    const org = orgs.organizations.find((o) => o.api_keys.includes(KEY))!;
    const name = 'deposit-flagged-sanctions-match';
    const started = await fetch(`${served.control_url}/ui/triggers/${name}/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ organization_id: org.organization_id }),
    });
    expect(started.status).toBe(202);
    const { run_id } = ((await started.json()) as { run: { run_id: string } }).run;
    let run: { status: string; failure: string | null; run: { ids: { account: string[] } } };
    for (;;) {
      run = ((await (await fetch(`${served.control_url}/ui/triggers/${name}/runs/${run_id}`)).json()) as { run: typeof run }).run;
      if (run.status !== 'running') break;
      await new Promise((done) => setTimeout(done, 50));
    }
    expect([run.status, run.failure]).toEqual(['passed', null]);
    // It ran with the organization's key: the account it made is that key's.
    expect((await api('GET', `/accounts/${run.run.ids.account[0]}`)).account.account_id).toBe(run.run.ids.account[0]);
  });
});

describe('swapsim trigger, interrupted', () => {
  it('SIGINT takes the case’s fault rules off the server (an outage must not outlive the trigger)', async () => {
    // A realtime server at speed 2: the case waits in wall time, so it is still running when interrupted.
    const rt = await startServe(['--port', '0', '--clock', 'realtime', '--speed', '2', '--api-key', KEY]);
    try {
      const rx = await startReceiver();
      receivers.push(rx);
      await fetch(`${rt.base_url}/webhooks`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', 'idempotency-key': 'rt-hook' },
        body: JSON.stringify({ url: rx.url }),
      });
      const child = spawn(
        process.execPath,
        [BIN, 'trigger', 'webhook-outage-recovered-from-feed', '--base-url', rt.base_url, '--api-key', KEY],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let err = '';
      child.stderr.on('data', (d) => (err += d));
      const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
      const faults = async (): Promise<unknown[]> =>
        ((await (await fetch(`${rt.control_url}/faults`)).json()) as { faults: unknown[] }).faults;
      for (let i = 0; i < 600 && (await faults()).length === 0; i++) await new Promise((r) => setTimeout(r, 50));
      expect(await faults()).toHaveLength(1);
      child.kill('SIGINT');
      expect(await exited).toBe(130);
      expect(err).toContain('removing the case');
      expect(await faults()).toEqual([]);
    } finally {
      rt.child.kill('SIGTERM');
      await rt.exited;
    }
  }, 60_000);
});

describe('swapsim listen', () => {
  it('--forward-to: prints the secret, the events and each answer; on SIGINT takes its webhook down and gives yours back', async () => {
    const fwd = await startReceiver();
    receivers.push(fwd);
    const child = spawn(
      process.execPath,
      [BIN, 'listen', '--base-url', served.base_url, '--api-key', KEY, '--forward-to', fwd.url, '--interval-ms', '100'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    const waitFor = async (re: RegExp): Promise<RegExpExecArray> => {
      for (let i = 0; i < 300; i++) {
        const m = re.exec(out);
        if (m) return m;
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error(`listen never printed ${re}: ${out}`);
    };
    fwd.secret = (await waitFor(/signing secret: (\S+)/))[1];
    await waitFor(/Ctrl-C to stop/);
    const r = await runSwapsim(['trigger', 'trade-fails-settlement-failed', '--base-url', served.base_url, '--api-key', KEY, '--json']);
    expect(r.code, r.err).toBe(0);
    const run = JSON.parse(r.out);
    const failed = run.events.find((e: any) => e.type === 'trade.failed');
    await waitFor(new RegExp(`trade\\.failed +${run.ids.trade[0]} +failure_code=settlement_failed .*${failed.event_id}`));
    await waitFor(new RegExp(`↳ dlv_\\S+ trade\\.failed ${failed.event_id} → HTTP 200 success`));
    expect(run.events.every((e: any) => acceptedEventIds(fwd).has(e.event_id))).toBe(true);
    child.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(out).toMatch(/webhook wh_\S+ deactivated/);
    const hooks = (await api('GET', '/webhooks')).webhooks;
    expect(hooks.filter((w: any) => w.active).map((w: any) => w.url)).toEqual([app.url]);
    expect(hooks.find((w: any) => w.url === fwd.url)?.active).toBe(false);
  });
});
