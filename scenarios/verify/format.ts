// What `swapsim verify` prints for a person: the verdict with the seed; on a failure, first the reason in one
// line, then the shrunk case as numbered steps, what each step did, the delivery log of the events involved,
// the divergence and a replay command that carries the case; then the client-conduct findings for the app's key
// (each with its request ids) and the coverage table: every spec item and the runs that reached it.
import { formatCoverage } from './coverage.ts';
import type { VerifyReport } from './verify.ts';

const show = (v: unknown): string => (v === null || v === undefined ? '(absent)' : typeof v === 'string' ? `"${v}"` : JSON.stringify(v));

export function formatReport(r: VerifyReport): string {
  const lines: string[] = [];
  const secs = (r.wall_ms / 1000).toFixed(1);
  const cut = r.interrupted ? ' (time limit reached)' : '';
  if (!r.failure) {
    lines.push(`swapsim verify: PASS: ${r.passed} runs${cut}, ${secs}s, seed ${r.seed} (app ${r.app_url})`);
  } else {
    const f = r.failure;
    const d = f.divergence;
    lines.push(`swapsim verify: FAIL: ${f.headline}`);
    const together = r.concurrency > 1 ? `, ${r.concurrency} runs at once` : '';
    lines.push(
      `  run ${f.run} failed, ${(r.runs_to_catch ?? 1) - 1} passed before it (seed ${r.seed}, provider seed ${f.sim_seed}, ${secs}s, ${r.num_shrinks ?? 0} shrink attempts${together})`,
    );
    const shrunk =
      f.shrunk_steps.length < f.original_steps
        ? ` (shrunk from ${f.original_steps}${r.shrink_cut ? ', shrinking stopped at its time limit' : ''})`
        : '';
    lines.push('', `Case (${f.shrunk_steps.length} steps${shrunk}):`, ...f.shrunk_steps.map((s) => `  ${s}`));
    if (f.pinned) lines.push(`  (${f.pinned})`);
    if (f.notes.length > 0) lines.push('', 'What the steps did:', ...f.notes.map((n) => `  ${n}`));
    if (f.delivery_log.length > 0)
      lines.push('', 'Delivery log of the events involved (sim time from the run start):', ...f.delivery_log.map((l) => `  ${l}`));
    lines.push('', 'Finding:', `  ${d.entity_type} ${d.entity_id}: ${d.field}: app ${show(d.app)}, provider ${show(d.provider)}`);
    if (f.detail) lines.push(`  ${f.detail}`);
    for (const m of f.more) lines.push(`  ${m}`);
    if (f.alone)
      lines.push(
        '',
        `Not replayable alone: ${f.alone}.`,
        'Its batch, run again (the same runs at once on the same provider seeds):',
        `  ${f.replay_command}`,
        'The generated run alone, unshrunk:',
        `  ${f.rerun_command}`,
      );
    else
      lines.push(
        '',
        'Replay (the same case on the same provider seed):',
        `  ${f.replay_command}`,
        'The generated run, unshrunk:',
        `  ${f.rerun_command}`,
      );
  }
  lines.push('');
  if (r.conduct.length === 0) lines.push("Client conduct of the app's API key: no findings.");
  else
    lines.push(
      `Client conduct of the app's API key (${r.conduct.length} findings):`,
      ...r.conduct.map(
        (c) =>
          `  ${c.kind}: ${c.detail ?? ''}${c.request_ids?.length ? ` (requests ${c.request_ids.slice(0, 3).join(', ')}${c.request_ids.length > 3 ? ', …' : ''})` : ''}`,
      ),
    );
  if (r.coverage.length > 0 && r.runs > 0) lines.push('', ...formatCoverage(r.coverage));
  return lines.join('\n');
}
