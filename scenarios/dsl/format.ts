// A run as a person reads it: one line per timeline entry (sim time since the start, entity, what
// happened), then the verdict.
import type { ScenarioRun, TimelineEntry } from '../../reports/types.ts';
import { formatOffset } from './duration.ts';

function what(e: TimelineEntry): string {
  switch (e.kind) {
    case 'transition':
      return `${e.from ?? '(new)'} → ${e.to}${e.detail ? `  on ${e.detail}` : ''}`;
    case 'event':
      return `event ${e.event_type}`;
    case 'delivery':
      return `delivery ${e.event_type ?? ''} ${e.detail ?? ''}`;
    case 'fault':
      return `FAULT ${e.detail ?? ''}`;
    case 'expectation':
      return `${e.ok ? 'ok  ' : 'FAIL'} ${e.detail ?? ''}`;
    case 'step':
      return `» ${e.detail ?? ''}`;
  }
}

export function formatEntry(e: TimelineEntry, start_ms: number): string {
  const entity = e.kind === 'step' || e.kind === 'expectation' ? '' : `${e.entity_type} ${e.entity_id}`;
  return `  ${formatOffset(e.sim_ms - start_ms).padEnd(14)} ${entity.padEnd(34)} ${what(e)}`;
}

const selfLoop = (e: TimelineEntry): boolean => e.kind === 'transition' && e.from === e.to;

/**
 * Runs of one entity's self-transitions on the same event (a deposit's twenty CONFIRMs) print once, at
 * the last, with a count; the JSON report keeps every entry.
 */
function collapse(timeline: TimelineEntry[]): Array<{ e: TimelineEntry; times: number }> {
  const out: Array<{ e: TimelineEntry; times: number } | null> = [];
  const open = new Map<string, number>();
  for (const e of timeline) {
    if (e.kind !== 'transition') {
      out.push({ e, times: 1 });
      continue;
    }
    const key = `${e.entity_id}|${e.detail}`;
    const prev = open.get(e.entity_id);
    const held = prev === undefined ? null : out[prev];
    if (selfLoop(e) && held && selfLoop(held.e) && `${held.e.entity_id}|${held.e.detail}` === key) {
      out[prev!] = null;
      out.push({ e, times: held.times + 1 });
    } else out.push({ e, times: 1 });
    open.set(e.entity_id, out.length - 1);
  }
  return out.filter((x): x is { e: TimelineEntry; times: number } => x !== null);
}

export function formatRun(run: ScenarioRun): string {
  const lines = [`scenario ${run.name} [${run.tags.join(', ')}]: ${run.summary}`];
  for (const { e, times } of collapse(run.timeline)) lines.push(formatEntry(e, run.started_sim_ms) + (times > 1 ? ` (×${times})` : ''));
  for (const c of run.conduct) lines.push(`  conduct: ${c.kind} ${c.detail ?? ''}`);
  const checks = `${run.expectations.filter((x) => x.ok).length}/${run.expectations.length} expectations`;
  lines.push(run.ok ? `PASS ${run.name} (${checks}, ${run.wall_ms} ms)` : `FAIL ${run.name}: ${run.error} (${checks}, ${run.wall_ms} ms)`);
  return lines.join('\n');
}
