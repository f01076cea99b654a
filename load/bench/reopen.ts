// `npm run bench:reopen -- --trades N [--after 1000]`: a benchmark, not a test. Records N settled trades (the
// `trade-exact-in` trigger, each in a fresh account: deposit, firm RFQ, accept, settle) in a journaled
// in-process swapsim, then times what a restart of `serve --state` (or `serve --from`) pays: reading the
// journal and replaying it into a live world, with and without checking every answer. Beside it, what a
// snapshot of the same world costs (docs/persistence.md#snapshots): it takes one, sends the next --after
// requests, restores it (a copy of the world, not a replay) and checks that the same requests get the same
// bytes back. `npm run bench:snapshot` measures snapshots of a 10,000-trade world.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { serve } from '../../fake-provider/server.ts';
import { readJournal, reopenJournal } from '../../fake-provider/persistence/reopen.ts';
import { runTrigger } from '../../scenarios/dsl/index.ts';
import { TRIGGERS } from '../../scenarios/library/index.ts';

const arg = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};

async function main(): Promise<void> {
  const trades = arg('trades', 200);
  const dir = mkdtempSync(join(tmpdir(), 'swapsim-bench-reopen-'));
  const journal_path = join(dir, 'journal.jsonl');
  const api_key = 'sk_bench_reopen';
  const limits = { reads: 1_000_000, writes: 1_000_000, indicative_rfqs: 1_000_000, firm_rfqs: 1_000_000 };
  const running = await serve({
    clock: 'virtual',
    seed: 'bench-reopen',
    journal_path,
    port: 0,
    seed_orgs: [{ api_keys: [api_key], rate_limits: limits }],
  });
  const trade = TRIGGERS.find((s) => s.name === 'trade-exact-in')!;
  const t0 = performance.now();
  for (let i = 0; i < trades; i++) {
    const run = await runTrigger(trade, { base_url: running.base_url, api_key, seed: `bench-${i}` });
    if (!run.ok) throw new Error(`trade ${i} failed: ${run.error ?? 'a check failed'}`);
  }
  const record_ms = performance.now() - t0;
  // A snapshot of that world, the next requests, and a restore (the snapshot mechanism's two costs).
  const post = async (path: string): Promise<number> => {
    const start = performance.now();
    const res = await fetch(running.control_url + path, { method: 'POST' });
    if (res.status !== 200) throw new Error(`POST ${path}: ${res.status} ${await res.text()}`);
    const body = (await res.json()) as { snapshot_id?: string };
    if (body.snapshot_id) snapshot_id = body.snapshot_id;
    return performance.now() - start;
  };
  let snapshot_id = '';
  const snapshot_ms = await post('/snapshots');
  // The next --after requests (reads and keyed writes), answered once after the snapshot and again after the restore.
  const after = arg('after', 1_000);
  const next = async (): Promise<string[]> => {
    const answers: string[] = [];
    for (let i = 0; i < after; i++) {
      const write = i % 4 === 0;
      const res = await fetch(`${running.base_url}/accounts${write ? '' : '?limit=5'}`, {
        method: write ? 'POST' : 'GET',
        headers: {
          authorization: `Bearer ${api_key}`,
          ...(write ? { 'content-type': 'application/json', 'idempotency-key': `after-${i}` } : {}),
        },
        body: write ? JSON.stringify({ label: `after-${i}` }) : undefined,
      });
      answers.push(`${res.status} ${await res.text()}`);
    }
    return answers;
  };
  const first = await next();
  const restore_ms = await post(`/snapshots/${snapshot_id}/restore`);
  const again = await next();
  const identical = first.filter((a, i) => a === again[i]).length;
  await running.close();
  const size = statSync(journal_path).size;
  const timed = async (verify: boolean): Promise<{ ms: number; lines: number }> => {
    const start = performance.now();
    const journal = readJournal(journal_path);
    const reopened = await reopenJournal(journal, { verify });
    const ms = performance.now() - start;
    if (reopened.report.mismatch || reopened.report.diverged) throw new Error('the replay did not follow the journal');
    await reopened.close();
    return { ms, lines: journal.lines.length + 1 };
  };
  const plain = await timed(false);
  const checked = await timed(true);
  rmSync(dir, { recursive: true, force: true });
  const per = (ms: number): string =>
    `${(ms / trades).toFixed(2)} ms/trade, ~${(((ms / trades) * 10_000) / 1000).toFixed(0)} s for 10,000 trades`;
  console.log(
    `recorded ${trades} settled trades in ${(record_ms / 1000).toFixed(1)} s: ${plain.lines} journal lines, ${(size / 1024 / 1024).toFixed(1)} MiB`,
  );
  console.log(`reopen (replay into a live world):      ${plain.ms.toFixed(0)} ms (${per(plain.ms)})`);
  console.log(`reopen with every answer checked:       ${checked.ms.toFixed(0)} ms (${per(checked.ms)})`);
  console.log(`snapshot (POST /_sim/snapshots):        ${snapshot_ms.toFixed(1)} ms`);
  console.log(`restore (POST …/restore, a copy):      ${restore_ms.toFixed(0)} ms`);
  console.log(`the ${after} requests after the snapshot, sent again after the restore: ${identical} of ${after} answers byte-identical`);
  if (identical !== after) process.exitCode = 1;
}

await main();
