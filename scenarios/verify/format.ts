// What `swapsim verify` prints for a person: the verdict with the seed, and on a mismatch the shrunk scenario
// as numbered steps, what each step did, the first divergent entity and a one-line replay command; then the
// client-conduct findings for the app's key.
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
    lines.push(`swapsim verify: FAIL: run ${r.runs_to_catch} diverged, ${(r.runs_to_catch ?? 1) - 1} passed before it (seed ${r.seed}, ${secs}s, ${r.num_shrinks} shrinks)`);
    const cut = r.shrink_cut ? ', shrinking stopped at its time limit' : '';
    lines.push('', `Shrunk scenario (${f.shrunk_steps.length} steps${cut}):`, ...f.shrunk_steps.map((s) => `  ${s}`));
    if (f.notes.length > 0) lines.push('', 'What the steps did:', ...f.notes.map((n) => `  ${n}`));
    lines.push('', 'First divergence:', `  ${d.entity_type} ${d.entity_id}: ${d.field}: app ${show(d.app)}, provider ${show(d.provider)}`);
    if (f.detail) lines.push(`  ${f.detail}`);
    lines.push('', 'Replay:', `  ${f.replay_command}`);
  }
  lines.push('');
  if (r.conduct.length === 0) lines.push("Client conduct of the app's API key: no findings.");
  else lines.push(`Client conduct of the app's API key (${r.conduct.length} findings):`, ...r.conduct.map((c) => `  ${c.kind}: ${c.detail ?? ''}`));
  return lines.join('\n');
}
