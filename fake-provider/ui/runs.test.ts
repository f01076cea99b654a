// The dashboard's trigger-run routes over HTTP (a real server on an ephemeral port, fetch): gated like /_sim,
// refusals in the envelope that start nothing, one run at a time per organization, the runner handed the chosen
// organization's key and this server's own URLs, and the journal holding the run's requests but never the run
// routes (a replay would run the trigger twice). The runner here is a stub that makes one real API call; the
// browser test runs the real one (cli/trigger-runner.ts).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestSim, type TestSim } from '../testing/harness.ts';
import type { TriggerRunner, TriggerTarget } from './trigger-runner.ts';

interface Stub extends TriggerRunner {
  targets: TriggerTarget[];
  /** Lets the runs under way finish. */
  release(): void;
}

/** `make-account` creates an account with the key it was given, says so, and waits to be released; `boom` throws. */
function stubRunner(): Stub {
  let release = (): void => undefined;
  const held = new Promise<void>((r) => {
    release = r;
  });
  const targets: TriggerTarget[] = [];
  return {
    targets,
    release: () => release(),
    names: async () => ['make-account', 'boom'],
    async run(name, target, onLine) {
      targets.push(target);
      if (name === 'boom') throw new Error('kaboom');
      const r = await fetch(`${target.base_url}/accounts`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${target.api_key}`,
          'content-type': 'application/json',
          'idempotency-key': `stub-${targets.length}`,
        },
        body: '{}',
      });
      const account_id = ((await r.json()) as { account: { account_id: string } }).account.account_id;
      onLine(`account ${account_id} created`);
      await held;
      return { ok: true, failure: null, output: `ok: ${name}`, run: { ids: { account: [account_id] } } };
    },
  };
}

let dir: string;
let sim: TestSim;
let orgA: { organization_id: string; api_key: string };
let orgB: { organization_id: string; api_key: string };
const journal = () => join(dir, 'journal.jsonl');

async function post(name: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: any }> {
  const res = await fetch(`${sim.control_url}/ui/triggers/${name}/runs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

async function read(name: string, run_id: string): Promise<{ status: number; body: any }> {
  const res = await fetch(`${sim.control_url}/ui/triggers/${name}/runs/${run_id}`);
  return { status: res.status, body: await res.json() };
}

/** Polls a run until it is no longer running. */
async function finished(name: string, run_id: string): Promise<any> {
  for (let i = 0; i < 200; i++) {
    const r = await read(name, run_id);
    if (r.body.run.status !== 'running') return r.body.run;
    await new Promise((done) => setTimeout(done, 10));
  }
  throw new Error(`run ${run_id} never finished`);
}

const accountsOf = async (key: string): Promise<number> =>
  ((await sim.api('GET', '/accounts?limit=100', { key })).body.accounts as unknown[]).length;

describe('POST /_sim/ui/triggers/{name}/runs', () => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ui-runs-'));
    sim = await startTestSim({ seed_orgs: [], journal_path: journal() });
    orgA = await sim.newOrg();
    orgB = await sim.newOrg();
  });
  afterEach(() => {
    delete sim.running.runtime.options.trigger_runner;
    delete sim.running.runtime.options.control_token;
  });
  afterAll(async () => {
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a server without a runner answers 501 trigger_runner_missing and starts nothing', async () => {
    const r = await post('make-account', { organization_id: orgA.organization_id });
    expect(r.status).toBe(501);
    expect(r.body.error.code).toBe('trigger_runner_missing');
    expect((await read('make-account', 'trun_1')).body.error.code).toBe('trigger_runner_missing');
    expect(await accountsOf(orgA.api_key)).toBe(0);
  });

  it('is gated like the control plane: without the token 401, and the runner is never called', async () => {
    const stub = stubRunner();
    sim.running.runtime.options.trigger_runner = stub;
    sim.running.runtime.options.control_token = 'runs-token';
    const r = await post('make-account', { organization_id: orgA.organization_id });
    expect(r.status).toBe(401);
    expect(r.body.error.code).toBe('unauthorized');
    expect((await post('make-account', { organization_id: orgA.organization_id }, { authorization: 'Bearer wrong' })).status).toBe(401);
    expect(stub.targets).toEqual([]);
  });

  it('bad input gets the envelope and starts nothing: unknown trigger or organization, an unknown field, broken JSON', async () => {
    const stub = stubRunner();
    sim.running.runtime.options.trigger_runner = stub;
    const unknownTrigger = await post('nope', { organization_id: orgA.organization_id });
    expect([unknownTrigger.status, unknownTrigger.body.error.code, unknownTrigger.body.error.param]).toEqual([404, 'not_found', 'name']);
    const unknownOrg = await post('make-account', { organization_id: 'org_nope' });
    expect([unknownOrg.status, unknownOrg.body.error.code, unknownOrg.body.error.param]).toEqual([404, 'not_found', 'organization_id']);
    const extra = await post('make-account', { organization_id: orgA.organization_id, speed: 2 });
    expect([extra.status, extra.body.error.code]).toEqual([400, 'invalid_parameter']);
    const missing = await post('make-account', {});
    expect([missing.status, missing.body.error.code, missing.body.error.param]).toEqual([400, 'parameter_missing', 'organization_id']);
    // Broken JSON: the control plane's own answer to it, without a journal line.
    const broken = await post('make-account', '{"organization_id":');
    const plane = await fetch(`${sim.control_url}/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"organization_id":',
    });
    const planeError = ((await plane.json()) as { error: { code: string; message: string } }).error;
    expect([broken.status, broken.body.error.code, broken.body.error.message]).toEqual([plane.status, planeError.code, planeError.message]);
    expect(broken.status).toBe(400);
    expect(stub.targets).toEqual([]);
    expect((await read('make-account', 'trun_999')).status).toBe(404);
  });

  it("runs with the chosen organization's key on this server, one at a time per organization; the journal holds its requests, not the run", async () => {
    const stub = stubRunner();
    sim.running.runtime.options.trigger_runner = stub;
    const first = await post('make-account', { organization_id: orgA.organization_id });
    expect(first.status).toBe(202);
    expect(first.body.run).toMatchObject({ trigger: 'make-account', organization_id: orgA.organization_id, status: 'running' });
    const run_id = first.body.run.run_id as string;
    // Its step line arrives while it runs.
    let lines: string[] = [];
    for (let i = 0; i < 200 && lines.length === 0; i++) {
      lines = (await read('make-account', run_id)).body.run.lines;
      if (lines.length === 0) await new Promise((done) => setTimeout(done, 10));
    }
    expect(lines).toHaveLength(1);
    const again = await post('make-account', { organization_id: orgA.organization_id });
    expect([again.status, again.body.error.code, again.body.error.details]).toEqual([
      409,
      'trigger_run_in_progress',
      { run_id, trigger: 'make-account' },
    ]);
    // Another organization is not held up.
    const other = await post('make-account', { organization_id: orgB.organization_id });
    expect(other.status).toBe(202);
    stub.release();
    const done = await finished('make-account', run_id);
    expect(done).toMatchObject({ status: 'passed', failure: null, output: 'ok: make-account' });
    await finished('make-account', other.body.run.run_id);
    // It ran as org A (its key, this server), and made exactly the account it reported, there and not in B's.
    expect(stub.targets.map((t) => [t.api_key, t.base_url, t.control_url])).toEqual([
      [orgA.api_key, sim.base_url, sim.control_url],
      [orgB.api_key, sim.base_url, sim.control_url],
    ]);
    const [made] = (done.run as { ids: { account: string[] } }).ids.account;
    expect(lines[0]).toBe(`account ${made} created`);
    expect((await sim.api('GET', `/accounts/${made}`, { key: orgA.api_key })).status).toBe(200);
    expect((await sim.api('GET', `/accounts/${made}`, { key: orgB.api_key })).status).toBe(404);
    // Once done, the organization takes a new run.
    const third = await post('make-account', { organization_id: orgA.organization_id });
    expect(third.status).toBe(202);
    await finished('make-account', third.body.run.run_id);

    const urls = readFileSync(journal(), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { kind: string; url?: string })
      .filter((l) => l.kind === 'request')
      .map((l) => l.url!);
    expect(urls.filter((u) => u === '/v1/accounts')).toHaveLength(3);
    expect(urls.filter((u) => u.includes('/ui/triggers'))).toEqual([]);
  });

  it("a runner that throws ends its run failed, with the runner's message as the failure line", async () => {
    sim.running.runtime.options.trigger_runner = stubRunner();
    const r = await post('boom', { organization_id: orgB.organization_id });
    expect(r.status).toBe(202);
    const done = await finished('boom', r.body.run.run_id);
    expect(done).toMatchObject({ status: 'failed', failure: 'the runner failed: kaboom' });
    expect((await post('boom', { organization_id: orgB.organization_id })).status).toBe(202);
  });
});
