// Reopening a journal (reopen.ts): the world rebuilt at a line answers the requests that followed that line
// exactly as the recording did (status, headers, body bytes, request ids included), then runs live: a
// trigger runs in it, and what it does next goes to the sink.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { startTestSim } from '../testing/harness.ts';
import { funded } from '../testing/fixtures/zaps.ts';
import { createJournal } from '../../sim/index.ts';
import { runTrigger } from '../../scenarios/dsl/index.ts';
import { TRIGGERS } from '../../scenarios/library/index.ts';
import type { RequestLine, ResponseLine } from '../replay/lines.ts';
import { responseDifference } from '../replay/verify.ts';
import { copyJournalPrefix, readJournal, reopenJournal } from './reopen.ts';
import { createSim } from '../../lib/sim.ts';

const dir = mkdtempSync(join(tmpdir(), 'swapsim-reopen-'));
const journal_path = join(dir, 'ci-run.jsonl');
const API_KEY = 'sk_test_reopen_1';
const NODE_HEADERS = new Set(['connection', 'keep-alive', 'date', 'transfer-encoding']);

/** Sends a journaled request again, as it was sent; returns what came back in the recorded shape. */
async function resend(base: string, line: RequestLine): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(line.headers)) if (v !== null) headers[k] = v;
  const res = await fetch(base + line.url, { method: line.method, headers, body: line.body ?? undefined });
  const got: Record<string, string> = {};
  // Node's socket adds hop-by-hop headers after the app's (the journal records the app's).
  res.headers.forEach((v, k) => void (NODE_HEADERS.has(k) || (got[k] = v)));
  return { status: res.status, headers: got, body: await res.text() };
}

describe('reopen a journaled run', () => {
  /** The line after which the run's final reads begin. */
  let cut = 0;
  let reads: Array<{ request: RequestLine; response: ResponseLine }> = [];

  beforeAll(async () => {
    // A CI run: an account funded by a deposit, a destination, time moved, then reads of what it holds.
    const sim = await startTestSim({ seed: 'reopen', journal_path, api_key: API_KEY });
    try {
      const f = await funded(sim);
      await sim.advance(60_000);
      const lines = readFileSync(journal_path, 'utf8').trim().split('\n');
      cut = lines.length;
      for (const path of [
        `/accounts/${f.account_id}`,
        `/accounts/${f.account_id}/balances`,
        `/events?account_id=${f.account_id}&limit=50`,
        `/accounts/${f.account_id}/destinations`,
      ]) {
        expect((await sim.api('GET', path)).status).toBe(200);
      }
    } finally {
      await sim.close();
    }
    const parsed = readJournal(journal_path)
      .lines.filter(({ n }) => n > cut)
      .map(({ line }) => line);
    const requests = parsed.filter((l): l is RequestLine => l.kind === 'request');
    reads = requests.map((request) => ({
      request,
      response: parsed.find((l): l is ResponseLine => l.kind === 'response' && l.request_id === request.request_id)!,
    }));
    expect(reads).toHaveLength(4);
  }, 30_000);

  it('at the line before the final reads, answers each of them byte for byte as the run did', async () => {
    const running = await reopenJournal(readJournal(journal_path), { until_line: cut, verify: true });
    try {
      expect(running.report.last_line).toBe(cut);
      for (const { request, response } of reads) {
        const got = await resend(running.base_url.replace(/\/v1$/, ''), request);
        expect(responseDifference(response, got), `${request.method} ${request.url}`).toBeNull();
        expect(JSON.parse(got.body).request_id).toBe(request.request_id);
      }
    } finally {
      await running.close();
    }
  }, 30_000);

  it('at its last line, runs a trigger live and journals it to the sink, which replays as one run', async () => {
    const out = join(dir, 'continued.jsonl');
    copyJournalPrefix(journal_path, undefined, out);
    const before = readFileSync(out, 'utf8').split('\n').length;
    const running = await reopenJournal(readJournal(journal_path), { sink: createJournal(out) });
    try {
      const run = await runTrigger(TRIGGERS.find((s) => s.name === 'trade-exact-in')!, {
        base_url: running.base_url,
        api_key: API_KEY,
        seed: 'reopened',
      });
      expect(run.error).toBeUndefined();
      expect(run.ok).toBe(true);
      expect(run.events.map((e) => e.type)).toContain('trade.settled');
    } finally {
      await running.close();
    }
    expect(readFileSync(out, 'utf8').split('\n').length).toBeGreaterThan(before + 10);
    // The continued journal is one run: reopened again (checking every answer), it stands where the trigger left it.
    const again = await reopenJournal(readJournal(out), { verify: true });
    try {
      expect(again.report.mismatch).toBeNull();
      expect(again.report.verified).toBeGreaterThan(reads.length + 10);
    } finally {
      await again.close();
    }
  }, 60_000);

  it('createSim({ from, until_line }) serves the same world in process, with the keys of the journal', async () => {
    const sim = await createSim({ from: journal_path, until_line: cut, api_keys: ['sk_ignored_1234'] });
    try {
      expect(sim.api_key).toBe(API_KEY);
      const [first] = reads;
      const got = await sim.api('GET', first.request.url.replace(/^\/v1/, ''));
      expect(got.status).toBe(200);
      expect(got.body).toEqual(JSON.parse(first.response.body));
      // Live: the virtual clock moves when told.
      const now = await sim.now_ms();
      expect(await sim.advance(1_000)).toBe(now + 1_000);
    } finally {
      await sim.close();
    }
  }, 30_000);
});
