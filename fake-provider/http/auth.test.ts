// The auth throttle over a real server: wrong keys from one address never lock out a valid key (every CI job
// shares 127.0.0.1), the throttle runs on wall time so its Retry-After holds on a virtual clock, and a
// journaled 429 verdict replays to the same answer.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { closeAfterEach, startTestSim, type TestSim } from '../testing/harness.ts';
import { parseJournal, replayJournal } from '../replay/run.ts';
import { DEFAULT_PROFILE } from '../profile.ts';

const opened = closeAfterEach(afterEach);
const sim = async (opts: Parameters<typeof startTestSim>[0] = {}): Promise<TestSim> => opened(await startTestSim(opts));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('the auth throttle', () => {
  it('100 wrong keys from one address, then a bystander valid key: 200; the next wrong key: 429 with Retry-After', async () => {
    const s = await sim();
    const bystander = await s.newOrg();
    for (let i = 0; i < 100; i++) expect((await s.api('GET', '/webhooks', { key: `sk_wrong_${i}` })).status).toBe(401);
    const ok = await s.api('GET', '/webhooks', { key: bystander.api_key });
    expect(ok.status).toBe(200);
    expect((await s.api('GET', '/webhooks')).status).toBe(200);
    const refused = await s.api('GET', '/webhooks', { key: 'sk_wrong_again' });
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('rate_limited');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(59);
    // Still: a valid key from the throttled address goes through.
    expect((await s.api('GET', '/webhooks', { key: bystander.api_key })).status).toBe(200);
    // A missing header is a misconfigured client, not a guess, and never a 429.
    expect((await s.api('GET', '/webhooks', { key: null })).status).toBe(401);
  });

  it('frees in wall time on a virtual clock: Retry-After is honest without any advance', async () => {
    const s = await sim({ profile: { ...DEFAULT_PROFILE, auth_failures_per_ip: { max: 3, window_ms: 1_000 } } });
    for (let i = 0; i < 3; i++) expect((await s.api('GET', '/webhooks', { key: `sk_guess_${i}` })).status).toBe(401);
    const refused = await s.api('GET', '/webhooks', { key: 'sk_guess_3' });
    expect(refused.status).toBe(429);
    const wait_s = Number(refused.headers.get('retry-after'));
    expect(wait_s).toBe(1);
    await sleep(wait_s * 1000 + 50);
    // The sim clock never moved; the window freed all the same.
    expect((await s.api('GET', '/webhooks', { key: 'sk_guess_4' })).status).toBe(401);
  });

  it('a journaled 429 verdict replays to the same answer', async () => {
    const journal = join(mkdtempSync(join(tmpdir(), 'swapsim-auth-')), 'run.jsonl');
    const s = await startTestSim({
      journal_path: journal,
      profile: { ...DEFAULT_PROFILE, auth_failures_per_ip: { max: 2, window_ms: 60_000 } },
    });
    for (let i = 0; i < 4; i++) await s.api('GET', '/webhooks', { key: `sk_guess_${i}` });
    expect((await s.api('GET', '/webhooks')).status).toBe(200);
    await s.close();
    const report = await replayJournal(parseJournal(readFileSync(journal, 'utf8')), { verify: true });
    expect(report.mismatch).toBeNull();
    expect(report.diverged).toBeNull();
    expect(report.verified).toBe(5);
  });
});
