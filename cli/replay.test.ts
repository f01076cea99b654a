// `swapsim replay`: a mixed session recorded with a journal (trading, webhooks with a failing delivery and a
// call-back, faults, 429s, clock moves, an HPKE export) and a realtime run replay byte for byte; tampered,
// cut-off, foreign-version and SIGKILLed journals each give the documented outcome.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSim, type TestSim } from '../fake-provider/testing/harness.ts';
import { startReceiver, type Receiver } from '../scenarios/dsl/webhook-receiver.ts';
import { firmQuote } from '../fake-provider/testing/flows.ts';
import {
  ARB_ETH,
  ARB_USDC,
  creditZap,
  funded,
  fundedCredit,
  newDestination,
  pinPrices,
  postZap,
} from '../fake-provider/testing/fixtures/zaps.ts';
import { postCancel } from '../fake-provider/testing/fixtures/cancels.ts';
import { recipientKeys } from '../scenarios/library/export-recipient.ts';
import { runReplay } from './replay.ts';
import { runSwapsim, startServe } from '../fake-provider/testing/swapsim-cli.ts';

const tmp = (name: string): string => join(mkdtempSync(join(tmpdir(), 'swapsim-replay-')), name);

function io() {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { out: (l: string) => void out.push(l), err: (l: string) => void err.push(l) } };
}

function expectOk(r: { status: number; body: unknown }, status = 200): void {
  expect(r.status, JSON.stringify(r.body)).toBe(status);
}

/** The recorded session: every kind of input the journal knows, with assertions that it really happened. */
async function mixedSession(sim: TestSim, receiver: Receiver): Promise<void> {
  await pinPrices(sim);
  const hook = await sim.api('POST', '/webhooks', { body: { url: receiver.url } });
  expectOk(hook);
  receiver.secret = hook.body.webhook.secret;
  // The receiver fails its first delivery (retried later), then accepts; its second delivery calls the API
  // back (a write) while swapsim waits for its answer, so requests interleave with a delivery in flight.
  let answered = 0;
  receiver.answer = async (r) => {
    answered++;
    if (answered === 1) return 500;
    if (answered === 2) expectOk(await sim.api('POST', '/accounts', { body: { label: 'from-hook' }, idem: 'hook-1' }));
    return r.signature_valid ? 200 : 401;
  };

  const f = await funded(sim);
  const { quote_id } = await firmQuote(sim, {
    account_id: f.account_id,
    credit_id: f.credit_id,
    destination_id: f.destination_id,
    from: ARB_USDC,
    to: ARB_ETH,
    amount_in_atoms: '20000000',
  });
  expectOk(await sim.api('POST', `/quotes/${quote_id}/accept`, { body: { slippage_bps: '50' } }));
  await sim.settle();
  // History loads the resource registry on first use (a dynamic import): the replay waits for its answer.
  expectOk(await sim.api('GET', `/accounts/${f.account_id}/history`));
  const zapCredit = await fundedCredit(sim, f.account_id, ARB_USDC, '100000000');
  const zap = await postZap(sim, creditZap({ ...f, credit_id: zapCredit }));
  expect([200, 201, 202], JSON.stringify(zap.body)).toContain(zap.status);
  const cancelCredit = await fundedCredit(sim, f.account_id, ARB_USDC, '5000000');
  const usdcDestination = await newDestination(sim, f.account_id, ARB_USDC);
  const cancel = await postCancel(sim, { account_id: f.account_id, credit_id: cancelCredit, destination_id: usdcDestination });
  expect([200, 202], JSON.stringify(cancel.body)).toContain(cancel.status);

  // A lost response: the write takes effect, the client sees a 500, the retry with its key gets the reply.
  expectOk(
    await sim.control('POST', '/faults', {
      target: 'http',
      effect: { lose_response: true },
      match: { method: 'POST', path: '/v1/accounts' },
      times: 1,
    }),
  );
  expect((await sim.api('POST', '/accounts', { body: { label: 'lost' }, idem: 'lost-1' })).status).toBe(500);
  expectOk(await sim.api('POST', '/accounts', { body: { label: 'lost' }, idem: 'lost-1' }));
  expectOk(
    await sim.control('POST', '/faults', {
      target: 'http',
      effect: { lose_response: true, mode: 'reset' },
      match: { method: 'POST', path: '/v1/accounts' },
      times: 1,
    }),
  );
  await expect(sim.api('POST', '/accounts', { body: { label: 'reset' }, idem: 'reset-1' })).rejects.toThrow();
  expectOk(await sim.api('POST', '/accounts', { body: { label: 'reset' }, idem: 'reset-1' }));

  // A request held on the sim clock by a delay_ms fault: it takes effect inside the next clock advance.
  expectOk(
    await sim.control('POST', '/faults', {
      target: 'http',
      effect: { delay_ms: 2_000 },
      match: { method: 'POST', path: '/v1/accounts' },
      times: 1,
    }),
  );
  const held = sim.api('POST', '/accounts', { body: { label: 'held' }, idem: 'held-1' });
  expectOk(await sim.api('GET', '/accounts?limit=5'));
  await sim.advance(2_000);
  expectOk(await held);

  // A low-limit org gets 429s (the limiter runs on wall time: the journal keeps its verdicts).
  const slow = await sim.newOrg({ rate_limits: { reads: 1 } });
  const statuses: number[] = [];
  for (let i = 0; i < 4; i++) statuses.push((await sim.api('GET', '/assets', { key: slow.api_key })).status);
  expect(statuses).toContain(429);

  // Requests that draw an id without reaching a route: an unknown path, a body that is not JSON.
  expect((await sim.api('GET', '/../nowhere')).status).toBe(404);
  expect((await fetch(`${sim.running.base_url.replace('/v1', '')}/elsewhere`)).status).toBe(404);
  expect((await sim.api('POST', '/accounts', { raw: '{not json' })).status).toBe(400);

  // An HPKE export on an account with nothing in flight.
  const quiet = (await sim.api('POST', '/accounts', { body: { label: 'export' } })).body.account.account_id;
  await sim.advance(10_000);
  expectOk(await sim.api('POST', `/accounts/${quiet}/export-keys`, { body: { target_public_key: recipientKeys().public_key_hex } }));
  await sim.advance(5_000);
  await sim.settle();
  const exported = await sim.api('GET', `/accounts/${quiet}`);
  expect(exported.body.account.status).toBe('exported');

  expect(receiver.received.some((r) => r.answered === 500)).toBe(true);
  expectOk(await sim.api('GET', '/events?limit=100'));
  expectOk(await sim.control('GET', '/conduct'));
  expectOk(await sim.control('GET', '/faults'));
  expect((await sim.invariants()).ok).toBe(true);
}

describe('swapsim replay', () => {
  let journal: string;
  let receiver: Receiver;

  beforeAll(async () => {
    journal = tmp('mixed.jsonl');
    receiver = await startReceiver();
    const sim = await startTestSim({ seed: 'replay-mixed', journal_path: journal });
    try {
      await mixedSession(sim, receiver);
    } finally {
      await sim.close();
    }
  }, 60_000);
  afterAll(() => receiver.close());

  it('a recorded mixed session replays and verifies byte for byte, without calling the receiver', async () => {
    const kinds = readFileSync(journal, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l).kind);
    expect(kinds[0]).toBe('header');
    for (const kind of ['request', 'response', 'outside', 'fact']) expect(kinds).toContain(kind);
    const seen = receiver.received.length;
    const r = io();
    expect(await runReplay(journal, { verify: true }, r.io), r.err.join('\n')).toBe(0);
    expect(r.out.join('\n')).toMatch(/^replayed \d+ inputs, verified \d+ responses, 0 mismatches$/);
    const verified = Number(/verified (\d+)/.exec(r.out[0])![1]);
    expect(verified).toBe(kinds.filter((k) => k === 'response').length);
    expect(receiver.received.length).toBe(seen);
  }, 60_000);

  it('a tampered answer fails --verify, naming its line', async () => {
    const lines = readFileSync(journal, 'utf8').split('\n');
    const n = lines.findIndex((l) => l.includes('"kind":"response"') && l.includes('\\"label\\":\\"lost\\"'));
    expect(n).toBeGreaterThan(0);
    lines[n] = lines[n].replace('\\"label\\":\\"lost\\"', '\\"label\\":\\"found\\"');
    const tampered = tmp('tampered.jsonl');
    writeFileSync(tampered, lines.join('\n'));
    const r = io();
    expect(await runReplay(tampered, { verify: true }, r.io)).toBe(1);
    expect(r.err.join('\n')).toContain(`mismatch at line ${n + 1}`);
    expect(r.err.join('\n')).toContain('POST /v1/accounts');
    expect(r.err.join('\n')).toMatch(/label: expected "found", got "lost"/);
  }, 60_000);

  it('a journal cut off mid-line replays up to its last complete line', async () => {
    const text = readFileSync(journal, 'utf8');
    const cut = tmp('cut.jsonl');
    // Drop the tail so the file ends in the middle of a line, as after a SIGKILL during a write.
    const last = text.lastIndexOf('\n', text.length - 2);
    writeFileSync(cut, text.slice(0, last + 20));
    const r = io();
    expect(await runReplay(cut, { verify: true }, r.io), r.err.join('\n')).toBe(0);
    expect(r.err.join('\n')).toContain('ends inside a line');
    expect(r.out[0]).toMatch(/0 mismatches/);
  }, 60_000);

  it('--until-line stops early; a journal of another version, or no journal, exits 2', async () => {
    const r = io();
    expect(await runReplay(journal, { verify: true, until_line: 12 }, r.io)).toBe(0);
    const lines = readFileSync(journal, 'utf8').split('\n');
    lines[0] = lines[0].replace('"version":2', '"version":999');
    const other = tmp('other.jsonl');
    writeFileSync(other, lines.join('\n'));
    const v = io();
    expect(await runReplay(other, { verify: true }, v.io)).toBe(2);
    expect(v.err.join('\n')).toMatch(/journal version 999, but this swapsim replays version 2/);
    const none = io();
    expect(await runReplay(tmp('missing.jsonl'), {}, none.io)).toBe(2);
  }, 60_000);

  it('an outside answer nothing waits for is reported as a divergence (exit 1)', async () => {
    const lines = readFileSync(journal, 'utf8').split('\n');
    const n = lines.findIndex((l) => l.includes('"kind":"outside"') && l.includes('"what":"webhook"'));
    expect(n).toBeGreaterThan(0);
    lines[n] = lines[n].replace('"key":"dlv_', '"key":"dlv_x');
    const tampered = tmp('diverged.jsonl');
    writeFileSync(tampered, lines.join('\n'));
    const r = io();
    expect(await runReplay(tampered, { verify: true }, r.io)).toBe(1);
    expect(r.err.join('\n')).toMatch(
      new RegExp(`diverged from the journal at line ${n + 1}: the journal holds the answer to webhook dlv_x`),
    );
  }, 60_000);

  it('without --verify, a run that takes another path is still caught (exit 1)', async () => {
    const lines = readFileSync(journal, 'utf8').split('\n');
    // Drop one request (and its answer) from the middle: every later id shifts.
    const n = lines.findIndex((l) => l.includes('"kind":"request"') && l.includes('"url":"/v1/webhooks"'));
    expect(n).toBeGreaterThan(0);
    const id = JSON.parse(lines[n]).request_id;
    const cut = lines.filter((l) => !l.includes(`"request_id":"${id}"`));
    const tampered = tmp('shifted.jsonl');
    writeFileSync(tampered, cut.join('\n'));
    const r = io();
    expect(await runReplay(tampered, {}, r.io)).toBe(1);
    expect(r.err.join('\n')).toMatch(/diverged from the journal at line \d+: request req_\w+ drew id req_\w+ in the replay/);
  }, 60_000);

  it('never prints a secret in a mismatch', async () => {
    const lines = readFileSync(journal, 'utf8').split('\n');
    const n = lines.findIndex((l) => l.includes('"kind":"response"') && l.includes('whsec_'));
    expect(n).toBeGreaterThan(0);
    lines[n] = lines[n].replace(/whsec_([0-9a-f])/, (_m, c: string) => `whsec_${c === '0' ? '1' : '0'}`);
    const tampered = tmp('secret.jsonl');
    writeFileSync(tampered, lines.join('\n'));
    const r = io();
    expect(await runReplay(tampered, { verify: true }, r.io)).toBe(1);
    expect(r.err.join('\n')).toContain('secret: expected [redacted], got [redacted]');
    expect(r.err.join('\n')).not.toContain('whsec_');
  }, 60_000);
});

describe('swapsim replay of a realtime run', () => {
  it('replays the clock movements and webhook answers of a realtime run byte for byte', async () => {
    const journal = tmp('realtime.jsonl');
    const receiver = await startReceiver();
    const sim = await startTestSim({ seed: 'replay-realtime', clock: 'realtime', speed: 200, journal_path: journal });
    try {
      const hook = await sim.api('POST', '/webhooks', { body: { url: receiver.url } });
      receiver.secret = hook.body.webhook.secret;
      receiver.answer = async (r) => {
        // Calls back on some deliveries: requests, ticks and deliveries interleave on wall time.
        if (r.body.type === 'account.created') await sim.api('GET', `/accounts/${r.body.account_id}`);
        return 200;
      };
      const ids: string[] = [];
      for (let i = 0; i < 6; i++) ids.push((await sim.api('POST', '/accounts', { body: { label: `rt${i}` } })).body.account.account_id);
      // Wall time passes (×200 on the sim clock): wallets get derived and their events delivered.
      for (let i = 0; i < 40 && receiver.received.length < 12; i++) await new Promise((r) => setTimeout(r, 25));
      for (const id of ids) expectOk(await sim.api('GET', `/accounts/${id}`));
    } finally {
      await sim.close();
      await receiver.close();
    }
    const kinds = readFileSync(journal, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l).kind);
    expect(kinds).toContain('clock');
    const r = io();
    expect(await runReplay(journal, { verify: true }, r.io), r.err.join('\n')).toBe(0);
    expect(r.out[0]).toMatch(/0 mismatches/);
  }, 60_000);
});

describe('swapsim replay of a served process killed with SIGKILL', () => {
  it('replays up to the last complete line, verifying what was answered and replaying the request cut off', async () => {
    const journal = tmp('killed.jsonl');
    // The receiver never answers: the clock advance that delivers to it is in flight when the process dies.
    const receiver = await startReceiver();
    receiver.answer = () => 'hang';
    const served = await startServe([
      '--port',
      '0',
      '--clock',
      'virtual',
      '--seed',
      '9',
      '--api-key',
      'sk_kill_test',
      '--journal',
      journal,
    ]);
    try {
      const base = served.base_url;
      const headers = { authorization: 'Bearer sk_kill_test', 'content-type': 'application/json' };
      const post = (path: string, body: unknown, key: string) =>
        fetch(`${base}${path}`, { method: 'POST', headers: { ...headers, 'idempotency-key': key }, body: JSON.stringify(body) });
      expect((await post('/webhooks', { url: receiver.url }, 'w')).status).toBe(200);
      for (let i = 0; i < 4; i++) expect((await post('/accounts', { label: `a${i}` }, `k${i}`)).status).toBe(200);
      expect((await fetch(`${base}/accounts?limit=10`, { headers })).status).toBe(200);
      void fetch(`${base.replace('/v1', '/_sim')}/clock/advance`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"ms":5000}',
      }).catch(() => undefined);
      for (let i = 0; i < 400 && receiver.received.length === 0; i++) await new Promise((r) => setTimeout(r, 25));
      expect(receiver.received.length).toBeGreaterThan(0);
    } finally {
      served.child.kill('SIGKILL');
      await served.exited;
      await receiver.close();
    }
    const lines = readFileSync(journal, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    // The hanging attempt's wall-time stamp is kept as a fact after the request that ran it.
    expect(lines.filter((l) => l.kind !== 'fact').at(-1)).toMatchObject({ kind: 'request', url: '/_sim/clock/advance' });
    expect(lines.at(-1)).toMatchObject({ kind: 'fact', what: 'webhook_timestamp' });
    const r = await runSwapsim(['replay', journal, '--verify']);
    expect(r.code, r.err).toBe(0);
    expect(r.out.trim()).toMatch(
      /^replayed 7 inputs, verified 6 responses, 0 mismatches; 1 still running when the journal ends \(req_\w+\)$/,
    );
  }, 60_000);

  it('the command exits 2 on a file that is not a journal', async () => {
    const junk = tmp('junk.jsonl');
    writeFileSync(junk, 'hello\nworld\n');
    const r = await runSwapsim(['replay', junk]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/line 1 is not a JSON line/);
  }, 60_000);
});
