// One receiver never stops everyone's time: a hanging receiver costs its own organization one timeout per
// instant and retries; the realtime clock keeps moving; a bystander's deliveries go out; lanes are bounded;
// close() finishes whatever receivers do.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestSim, type TestSim } from '../../testing/harness.ts';
import { startReceiver, type Receiver } from '../../../scenarios/dsl/webhook-receiver.ts';
import { publish } from '../../engine/index.ts';
import { DEFAULT_PROFILE, type Profile } from '../../profile.ts';

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((o) => o.close()));
});

async function sim(profile: Partial<Profile>, clock: 'virtual' | 'realtime' = 'virtual'): Promise<TestSim> {
  const s = await startTestSim({ clock, profile: { ...DEFAULT_PROFILE, ...profile } });
  open.push(s);
  return s;
}

async function receiver(): Promise<Receiver> {
  const r = await startReceiver();
  open.push(r);
  return r;
}

async function orgWithWebhook(s: TestSim, rx: Receiver) {
  const org = await s.newOrg({ rate_limits: { reads: 10_000, writes: 10_000 } });
  const w = (await s.api('POST', '/webhooks', { key: org.api_key, body: { url: rx.url } })).body.webhook;
  rx.secret = w.secret;
  const emit = (account_id: string, n = 1) => {
    for (let i = 0; i < n; i++) publish(s.running.runtime.world, org.organization_id, account_id, 'test.ping', { i });
  };
  const deliveries = async () =>
    (await s.api('GET', `/webhooks/${w.webhook_id}/deliveries?limit=100`, { key: org.api_key })).body.deliveries as Array<{
      status: string;
      http_status: number;
      next_retry_at_ms: number | null;
    }>;
  return { org, webhook: w, emit, deliveries };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const until = async (cond: () => boolean, ms = 10_000) => {
  for (let waited = 0; !cond() && waited < ms; waited += 20) await sleep(20);
  return cond();
};

describe('a hanging receiver', () => {
  it('virtual clock: costs one timeout per instant, not one per delivery; its deliveries fail and retry; a bystander is served', async () => {
    const s = await sim({ webhook_timeout_ms: 300 });
    const hanging = await receiver();
    hanging.answer = () => 'hang';
    const fine = await receiver();
    const a = await orgWithWebhook(s, hanging);
    const b = await orgWithWebhook(s, fine);
    a.emit('acct_a', 20);
    b.emit('acct_b', 3);
    await s.advance(0);
    // One POST went out and timed out; the 19 behind it failed at once instead of each waiting 300 ms.
    expect(hanging.received).toHaveLength(1);
    const mine = await a.deliveries();
    expect(mine).toHaveLength(20);
    for (const d of mine) expect(d).toMatchObject({ status: 'pending', http_status: 0, next_retry_at_ms: expect.any(Number) });
    expect(fine.received).toHaveLength(3);
    expect((await b.deliveries()).every((d) => d.status === 'success')).toBe(true);
    // The next instant tries again (a receiver that came back gets its retries).
    hanging.answer = () => 200;
    await s.advance(30_000);
    expect((await a.deliveries()).every((d) => d.status === 'success')).toBe(true);
  });

  it('virtual clock with a journal (attempts awaited in turn): still one timeout per instant', async () => {
    const journal_path = join(mkdtempSync(join(tmpdir(), 'swapsim-lanes-')), 'run.jsonl');
    const s = await startTestSim({ journal_path, profile: { ...DEFAULT_PROFILE, webhook_timeout_ms: 300 } });
    open.push(s);
    const hanging = await receiver();
    hanging.answer = () => 'hang';
    const a = await orgWithWebhook(s, hanging);
    a.emit('acct_a', 5);
    await s.advance(0);
    expect(hanging.received).toHaveLength(1);
    expect((await a.deliveries()).every((d) => d.status === 'pending' && d.http_status === 0)).toBe(true);
  });

  it('realtime clock: time keeps moving and a bystander organization is delivered while it hangs', async () => {
    const s = await sim({ webhook_timeout_ms: 30_000 }, 'realtime');
    const hanging = await receiver();
    hanging.answer = () => 'hang';
    const fine = await receiver();
    const a = await orgWithWebhook(s, hanging);
    const b = await orgWithWebhook(s, fine);
    a.emit('acct_a', 5);
    expect(await until(() => hanging.received.length === 1)).toBe(true);
    const clock = async () => (await s.control('GET', '/clock')).body.clock.now_ms as number;
    const t0 = await clock();
    b.emit('acct_b');
    expect(await until(() => fine.received.length === 1)).toBe(true);
    await sleep(300);
    // The hanging POST is still open (30 s timeout) and yet the sim clock moved on.
    expect(await clock()).toBeGreaterThan(t0);
    expect(hanging.received).toHaveLength(1);
    // An attempt in flight is logged as the machine counts it: the invariants hold meanwhile.
    expect(await s.invariants()).toMatchObject({ ok: true, violations: [] });
  });

  it('other tenants holding the world bound with hanging receivers do not hold a bystander back', async () => {
    // Realtime: nothing waits for the hanging POSTs, so the bystander's wall time to its receiver is the measure.
    const s = await sim({ webhook_timeout_ms: 3_000, webhook_max_in_flight_total: 2 }, 'realtime');
    const hanging = await receiver();
    hanging.answer = () => 'hang';
    const fine = await receiver();
    for (let i = 0; i < 3; i++) (await orgWithWebhook(s, hanging)).emit(`acct_h${i}`, 4);
    const b = await orgWithWebhook(s, fine);
    expect(await until(() => hanging.received.length >= 2)).toBe(true);
    const t0 = Date.now();
    b.emit('acct_b');
    expect(await until(() => fine.received.length === 1, 5_000)).toBe(true);
    // Far sooner than the 3 s a hanging POST holds its slot.
    expect(Date.now() - t0).toBeLessThan(1_500);
  });

  it('a tripped lane holds one POST at a time (a probe), not one per account', async () => {
    const s = await sim({ webhook_timeout_ms: 300 }, 'realtime');
    const hanging = await receiver();
    hanging.answer = () => 'hang';
    const a = await orgWithWebhook(s, hanging);
    a.emit('acct_1');
    expect(await until(() => hanging.received.length === 1)).toBe(true);
    await sleep(500);
    // Tripped: four accounts' deliveries now go one at a time, not four at once.
    for (let i = 2; i <= 5; i++) a.emit(`acct_${i}`);
    await sleep(150);
    expect(hanging.received).toHaveLength(2);
  });

  it('a full lane fails the attempts past webhook_max_queued at once; they are retried later', async () => {
    const s = await sim({ webhook_max_queued: 3 });
    const slow = await receiver();
    slow.answer = async () => {
      await sleep(50);
      return 200;
    };
    const a = await orgWithWebhook(s, slow);
    a.emit('acct_a', 10);
    await s.advance(0);
    // One running, three waiting, six refused at once.
    expect(slow.received).toHaveLength(4);
    const ds = await a.deliveries();
    expect(ds.filter((d) => d.status === 'success')).toHaveLength(4);
    expect(ds.filter((d) => d.status === 'pending' && d.http_status === 0)).toHaveLength(6);
  });

  it('close() finishes while a settle waits on a receiver that never answers', async () => {
    const s = await startTestSim({ profile: { ...DEFAULT_PROFILE, webhook_timeout_ms: 120_000 } });
    const hanging = await receiver();
    hanging.answer = () => 'hang';
    const a = await orgWithWebhook(s, hanging);
    a.emit('acct_a');
    const settling = s.control('POST', '/clock/settle', { max_ms: 1000 }).catch(() => 'closed');
    expect(await until(() => hanging.received.length === 1)).toBe(true);
    const closed = await Promise.race([s.close().then(() => 'closed'), sleep(20_000).then(() => 'still open')]);
    expect(closed).toBe('closed');
    await settling;
  });
});
