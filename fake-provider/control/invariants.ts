// Invariants over a whole world (design.md, Invariants): the spec oracle (fake-provider/oracle: lifecycles,
// conservation, credit sources, fees and protocol rules written from the spec over what an integrator sees),
// the core ones here (event ids unique and events frozen; every entity's transitions chain into a path of its
// machine; terminal states absorb), plus whatever each resource checks about its own state.
import type { World } from '../world.ts';
import type { Violation } from '../resource.ts';
import { RESOURCES } from '../resources/index.ts';
import { machineEdges, machineInfo } from '../engine/index.ts';
import { checkSpec, SPEC_CHECKS } from '../oracle/index.ts';
import { retentionState } from '../retention.ts';

/**
 * Checks that compare entities with their whole event history (the spec oracle reads the feed; credit,
 * deposit, cancel and destination events counted per entity). Once events have been swept by retention
 * (profile `event_retention_ms` shorter than the run) they cannot hold, and are skipped, not run.
 */
const NEEDS_EVENT_HISTORY = ['spec.', 'credits.event_matches', 'deposits.events_once', 'cancels.events', 'destinations.events_'];

export function checkInvariants(world: World): {
  checked: string[];
  violations: Violation[];
  skipped: Array<{ invariant: string; reason: string }>;
} {
  const result = checkAll(world);
  const swept = retentionState(world).events_swept;
  if (swept === 0) return { ...result, skipped: [] };
  const needs = (name: string): boolean => NEEDS_EVENT_HISTORY.some((p) => name.startsWith(p));
  const reason = `${swept} events were swept by event_retention_ms: checks against the whole event history cannot hold`;
  return {
    checked: result.checked.filter((c) => !needs(c)),
    violations: result.violations.filter((v) => !needs(v.invariant)),
    skipped: NEEDS_EVENT_HISTORY.map((p) => ({ invariant: p.endsWith('.') || p.endsWith('_') ? `${p}*` : p, reason })),
  };
}

function checkAll(world: World): { checked: string[]; violations: Violation[] } {
  const violations: Violation[] = [];
  const checked: string[] = [...SPEC_CHECKS, 'event_ids_unique', 'events_immutable', 'lifecycle_paths', 'terminal_states_absorb'];
  violations.push(...checkSpec(world));

  const seen = new Set<string>();
  for (const e of world.events.all) {
    if (seen.has(e.envelope.event_id))
      violations.push({ invariant: 'event_ids_unique', entity_id: e.envelope.event_id, message: 'duplicate event id' });
    seen.add(e.envelope.event_id);
    if (!Object.isFrozen(e.envelope) || !Object.isFrozen(e.envelope.data)) {
      violations.push({ invariant: 'events_immutable', entity_id: e.envelope.event_id, message: 'event is not frozen' });
    }
  }

  const last = new Map<string, string>();
  for (const r of world.transitions.records) {
    const machine = machineInfo(r.kind);
    const key = `${r.kind}:${r.entity_id}`;
    const prev = last.get(key) ?? null;
    if (prev !== r.from)
      violations.push({
        invariant: 'lifecycle_paths',
        entity_id: r.entity_id,
        message: `${r.kind} went ${r.from}→${r.to} but was in ${prev}`,
      });
    if (machine) {
      if (r.from !== null && machine.finals.has(r.from)) {
        violations.push({
          invariant: 'terminal_states_absorb',
          entity_id: r.entity_id,
          message: `${r.kind} left terminal state ${r.from}`,
        });
      }
      if (r.from !== null && r.from !== r.to && !machineEdges(r.kind).has(`${r.from}|${r.event}|${r.to}`)) {
        violations.push({
          invariant: 'lifecycle_paths',
          entity_id: r.entity_id,
          message: `${r.kind} ${r.from} --${r.event}--> ${r.to} is not an edge of the machine`,
        });
      }
    }
    last.set(key, r.to);
  }

  for (const resource of RESOURCES) {
    if (!resource.invariants) continue;
    checked.push(`${resource.name}.*`);
    violations.push(...resource.invariants(world));
  }
  return { checked, violations };
}
