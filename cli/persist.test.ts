// `swapsim serve --state DIR` killed with SIGKILL mid-traffic (realtime clock, a webhook receiving): the
// restarted server holds every answer the client got before the kill, serves on (webhooks signed with the
// same secret), and its whole journal, kill included, replays as one uninterrupted run byte for byte.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServe, type Served } from '../fake-provider/testing/swapsim-cli.ts';
import { startReceiver, type Receiver } from '../scenarios/dsl/webhook-receiver.ts';
import { runReplay } from './replay.ts';

interface Answer {
  method: string;
  path: string;
  idem: string | null;
  body: string | null;
  status: number;
  text: string;
}

async function call(base: string, key: string, method: string, path: string, body?: unknown, idem?: string): Promise<Answer> {
  const headers: Record<string, string> = { authorization: `Bearer ${key}` };
  if (idem) headers['idempotency-key'] = idem;
  const payload = body === undefined ? null : JSON.stringify(body);
  if (payload !== null) headers['content-type'] = 'application/json';
  const res = await fetch(base + path, { method, headers, body: payload ?? undefined });
  return { method, path, idem: idem ?? null, body: payload, status: res.status, text: await res.text() };
}

const control = async (served: Served, path: string, body: unknown): Promise<any> => {
  const res = await fetch(served.control_url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(200);
  return res.json();
};

describe('serve --state survives SIGKILL', () => {
  const dir = join(mkdtempSync(join(tmpdir(), 'swapsim-state-')), 'world');
  // --demo seeds the first start only: a restart reopens the same people.
  const args = ['--state', dir, '--port', '0', '--clock', 'realtime', '--speed', '50', '--seed', 'persist', '--demo'];
  const people = async (s: Served): Promise<unknown[]> =>
    JSON.parse((await call(s.base_url, 'sk_sim_demo', 'GET', '/accounts?limit=100')).text).accounts;
  let demo: unknown[] = [];
  let receiver: Receiver;
  let key = '';
  const acknowledged: Answer[] = [];
  let restarted: Served;
  /** Answered after the restart: the state must keep it too. */
  let after: Answer | undefined;

  beforeAll(async () => {
    receiver = await startReceiver();
    const first = await startServe(args);
    expect(first.out()).toContain('--demo: seeded 1 organization(s), 8 account(s)');
    demo = await people(first);
    key = (await control(first, '/organizations', { rate_limits: { reads: 100_000, writes: 100_000 } })).organization.api_key;
    const hook = await call(first.base_url, key, 'POST', '/webhooks', { url: receiver.url }, 'hook');
    expect(hook.status).toBe(200);
    receiver.secret = JSON.parse(hook.text).webhook.secret;
    acknowledged.push(hook);
    // Traffic: accounts (their wallet_created webhooks follow on the moving clock) and reads of them.
    for (let i = 0; i < 5; i++) {
      const created = await call(first.base_url, key, 'POST', '/accounts', { label: `user-${i}` }, `acct-${i}`);
      acknowledged.push(created);
      acknowledged.push(await call(first.base_url, key, 'GET', `/accounts/${JSON.parse(created.text).account.account_id}`));
    }
    expect(acknowledged.every((a) => a.status === 200)).toBe(true);
    expect(receiver.received.length).toBeGreaterThan(0);
    // Mid-traffic: writes in flight when the process dies; those answered count as acknowledged.
    const inflight = Array.from({ length: 8 }, (_, i) =>
      call(first.base_url, key, 'POST', '/accounts', { label: `late-${i}` }, `late-${i}`),
    );
    await new Promise((r) => setTimeout(r, 5));
    first.child.kill('SIGKILL');
    const settled = await Promise.allSettled(inflight);
    for (const r of settled) if (r.status === 'fulfilled') acknowledged.push(r.value);
    console.log(`killed with ${settled.filter((r) => r.status === 'rejected').length} of ${inflight.length} writes unanswered`);
    expect(await first.exited).toBeNull();
    restarted = await startServe(args);
  }, 60_000);

  afterAll(async () => {
    if (restarted?.child.exitCode === null) restarted.child.kill('SIGKILL');
    await receiver?.close();
  });

  it('every answer given before the kill is in the state, and every acknowledged write is still there', async () => {
    expect(restarted.out()).toMatch(/reopened .*journal\.jsonl \(replayed \d+ inputs, verified \d+ answers\)/);
    expect(restarted.out()).not.toContain('seeded');
    expect(await people(restarted)).toEqual(demo);
    const lines = readFileSync(join(dir, 'journal.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const answers = new Map(lines.filter((l) => l.kind === 'response').map((l) => [JSON.parse(l.body).request_id, l]));
    for (const a of acknowledged) {
      const line = answers.get(JSON.parse(a.text).request_id);
      expect(line?.body, `${a.method} ${a.path}`).toBe(a.text);
      expect(line?.status).toBe(a.status);
    }
    for (const a of acknowledged.filter((x) => x.method === 'POST' && x.path === '/accounts')) {
      const { account } = JSON.parse(a.text);
      const read = await call(restarted.base_url, key, 'GET', `/accounts/${account.account_id}`);
      expect(read.status).toBe(200);
      expect(JSON.parse(read.text).account).toEqual(account);
      // Retried with its key after the restart, the write answers exactly as it did before.
      const again = await call(restarted.base_url, key, a.method, a.path, JSON.parse(a.body!), a.idem!);
      expect([again.status, again.text]).toEqual([a.status, a.text]);
    }
  }, 30_000);

  it('serves on: new writes, webhooks signed with the kept secret, invariants hold', async () => {
    const seen = receiver.received.length;
    const created = await call(restarted.base_url, key, 'POST', '/accounts', { label: 'after' }, 'after-1');
    expect(created.status).toBe(200);
    after = created;
    const id = JSON.parse(created.text).account.account_id;
    for (let i = 0; i < 100 && !receiver.received.slice(seen).some((r) => r.body.account_id === id); i++)
      await new Promise((r) => setTimeout(r, 50));
    const delivered = receiver.received.slice(seen).find((r) => r.body.account_id === id);
    expect(delivered?.signature_valid).toBe(true);
    const invariants = (await (await fetch(`${restarted.control_url}/invariants`)).json()) as { violations: unknown[] };
    expect(invariants.violations).toEqual([]);
  }, 30_000);

  it('the journal, kill and restart included, replays as one run with every answer byte for byte', async () => {
    restarted.child.kill('SIGTERM');
    expect(await restarted.exited).toBe(0);
    const journal = join(dir, 'journal.jsonl');
    const responses = readFileSync(journal, 'utf8')
      .split('\n')
      .filter((l) => l.includes('"kind":"response"'));
    expect(responses.map((l) => JSON.parse(l).body)).toContain(after!.text);
    const out: string[] = [];
    const err: string[] = [];
    expect(await runReplay(journal, { verify: true }, { out: (l) => void out.push(l), err: (l) => void err.push(l) }), err.join('\n')).toBe(
      0,
    );
    expect(out.join('\n')).toContain(`verified ${responses.length} responses, 0 mismatches`);
  }, 60_000);
});
