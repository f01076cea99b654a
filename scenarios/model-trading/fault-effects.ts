// Every fault rule that fired had its effect. The model reads the fault plan's firings (`GET /_sim/faults`:
// which rule fired, when, on which entity) once the run has settled, and checks each against what an
// integrator sees of that entity, from the spec's side:
// - `fail: <code>` on a trade, zap, cancel (or a recovery's payout): the entity ended `failed` with that code
//   (or with the code of another fail rule that fired on it at the same instant: the first one wins);
//   `settlement_orphaned` also shows the orphan event first (`<kind>.settlement_orphaned`);
// - `reorg: <leg>` on a trade or zap: a `<kind>.settlement_orphaned` event for each leg a reorg fired on (at
//   most one per reorg), and, once it settled, as many `<kind>.settlement_reconfirmed`;
// - `fail` on a deposit: dropped before finality (no credit, status `dropped`), unless screening flagged it first;
// - `delay_ms`: the entity still ended (checked by the settling phase: every operation is terminal).
// It returns the cells that fired (`<target>.<effect>`), for the reach the test prints.
import { expect } from 'vitest';
import { api, type TradingModel, type TradingReal } from './model.ts';

interface Firing {
  fault_id: string;
  target: string;
  at_ms: number;
  subject: string;
}

interface Rule {
  fault_id: string;
  target: string;
  effect: Record<string, unknown>;
}

/** A name for a rule's effect: `fail.<code>`, `reorg.<leg>`, `delay`, `flag`. */
export function effectName(effect: Record<string, unknown>): string {
  if ('fail' in effect) return `fail.${effect.fail}`;
  if ('reorg' in effect) return `reorg.${effect.reorg}`;
  if ('delay_ms' in effect) return 'delay';
  return Object.keys(effect).join('+');
}

export async function checkFaultEffects(m: TradingModel, r: TradingReal): Promise<string[]> {
  const res = await r.sim.control('GET', '/faults');
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const rules = new Map<string, Rule>((res.body.faults as Rule[]).map((x) => [x.fault_id, x]));
  const fired = (res.body.fired as Firing[]).filter((f) => f.target !== 'http');
  const events = new Map<string, Array<{ type: string; data: Record<string, string> }>>();
  const eventsOf = async (account_id: string) => {
    if (!events.has(account_id)) {
      const all: Array<{ type: string; data: Record<string, string> }> = [];
      let cursor: string | null = null;
      do {
        const page = await api(r, 'GET', `/events?account_id=${account_id}&limit=100${cursor ? `&cursor=${cursor}` : ''}`);
        expect(page.status, JSON.stringify(page.body)).toBe(200);
        all.push(...page.body.events);
        cursor = page.body.next_cursor;
      } while (cursor);
      events.set(account_id, all);
    }
    return events.get(account_id)!;
  };
  const cells: string[] = [];
  for (const f of fired) {
    const rule = rules.get(f.fault_id);
    expect(rule, `fault ${f.fault_id} fired but is not listed`).toBeDefined();
    const name = effectName(rule!.effect);
    cells.push(`${f.target}.${name}`);
    const what = `fault ${f.fault_id} (${f.target} ${JSON.stringify(rule!.effect)}) fired at ${f.at_ms} on ${f.subject}`;
    const ids = f.subject.split(',');
    if (f.target === 'deposit') {
      const d = m.deposits.find((x) => ids.some((id) => id.toLowerCase() === x.tx_hash.toLowerCase()));
      if (!d || !('fail' in rule!.effect)) continue;
      const rows = (await r.sim.control('GET', `/deposits?account_id=${d.account_id}`)).body.deposits as Array<{
        tx_hash: string;
        status: string;
      }>;
      const row = rows.find((x) => x.tx_hash.toLowerCase() === d.tx_hash.toLowerCase());
      // Dropped before finality; screening that flags it first ends it sooner (flagged: no credit either).
      expect(['dropped', 'flagged'], `${what}: the deposit should have been dropped, it is ${row?.status}`).toContain(row?.status);
      continue;
    }
    const op = m.ops.find((o) => ids.includes(o.id));
    expect(op, `${what}: on an entity the model never made`).toBeDefined();
    if ('delay_ms' in rule!.effect) continue;
    const kind = op!.kind;
    const body = (await api(r, 'GET', `/${kind}s/${op!.id}`)).body[kind];
    const mine = (await eventsOf(op!.account_id)).filter((e) => e.data[`${kind}_id`] === op!.id);
    const count = (type: string) => mine.filter((e) => e.type === `${kind}.${type}`).length;
    if ('fail' in rule!.effect) {
      // Fail rules that fired on the same entity at the same instant: the first one's code is the one shown.
      const together = fired
        .filter((g) => g.subject === f.subject && g.at_ms === f.at_ms)
        .map((g) => rules.get(g.fault_id)?.effect)
        .filter((e) => e && 'fail' in e)
        .map((e) => String(e!.fail));
      expect(body.status, `${what}: the ${kind} did not fail (${JSON.stringify(body)})`).toBe('failed');
      expect(together, `${what}: the ${kind} failed with ${body.failure_code}`).toContain(body.failure_code);
      if (body.failure_code === 'settlement_orphaned')
        expect(count('settlement_orphaned'), `${what}: no ${kind}.settlement_orphaned before the failure`).toBeGreaterThan(0);
    } else if ('reorg' in rule!.effect) {
      // Each leg a reorg fired on drops (twice on one leg at once: the second finds it already dropped).
      const legs = fired
        .filter((g) => g.subject === f.subject && 'reorg' in (rules.get(g.fault_id)?.effect ?? {}))
        .map((g) => String(rules.get(g.fault_id)!.effect.reorg));
      const orphaned = count('settlement_orphaned');
      expect(
        orphaned >= new Set(legs).size && orphaned <= legs.length,
        `${what}: reorgs of legs ${legs.join(', ')} fired on ${kind} ${op!.id}, its feed shows ${orphaned} ${kind}.settlement_orphaned`,
      ).toBe(true);
      if (body.status === 'settled')
        expect(count('settlement_reconfirmed'), `${what}: every orphaned leg of the settled ${kind} reconfirms`).toBe(orphaned);
    }
  }
  return cells;
}
