// Compares what the app believes about one account (GET /probe/state) with the provider's truth, entity by
// entity, and names the first difference: trades, zaps and cancels by status first (the most telling), then
// entities only one side knows, then available balances per asset (a missing asset counts as 0).
import type { VerifyDivergence } from '../../reports/types.ts';
import type { AccountTruth } from '../../lib/sim.ts';

export type ProbeState = AccountTruth;

type Kind = 'trade' | 'zap' | 'cancel';
const LISTS: Array<[Kind, 'trades' | 'zaps' | 'cancels', 'trade_id' | 'zap_id' | 'cancel_id']> = [
  ['trade', 'trades', 'trade_id'],
  ['zap', 'zaps', 'zap_id'],
  ['cancel', 'cancels', 'cancel_id'],
];

/** A shape problem in the app's answer, or null when it matches the probe contract. */
export function shapeProblem(body: unknown): string | null {
  if (typeof body !== 'object' || body === null) return 'GET /probe/state must answer a JSON object';
  const b = body as Record<string, unknown>;
  for (const [field, key] of [['balances', 'asset_key'], ['trades', 'trade_id'], ['zaps', 'zap_id'], ['cancels', 'cancel_id']] as const) {
    const list = b[field];
    if (!Array.isArray(list)) return `${field} must be an array`;
    for (const item of list) {
      if (typeof item !== 'object' || item === null || typeof (item as Record<string, unknown>)[key] !== 'string') return `each of ${field} needs a string ${key}`;
      const value = field === 'balances' ? (item as Record<string, unknown>).available_atoms : (item as Record<string, unknown>).status;
      if (typeof value !== 'string' || (field === 'balances' && !/^-?[0-9]+$/.test(value))) {
        return field === 'balances' ? 'each balance needs available_atoms as an integer string' : `each of ${field} needs a string status`;
      }
    }
  }
  return null;
}

export function firstDivergence(account_id: string, app: ProbeState, truth: AccountTruth): VerifyDivergence | null {
  for (const [kind, field, key] of LISTS) {
    const mine = new Map((app[field] as Array<Record<string, string>>).map((e) => [e[key], e.status]));
    const theirs = truth[field] as Array<Record<string, string>>;
    for (const t of theirs) {
      const status = mine.get(t[key]) ?? null;
      if (status !== t.status) return { entity_type: kind, entity_id: t[key], field: 'status', app: status, provider: t.status };
    }
    const known = new Set(theirs.map((t) => t[key]));
    for (const [id, status] of mine) {
      if (!known.has(id)) return { entity_type: kind, entity_id: id, field: 'status', app: status, provider: null };
    }
  }
  const atoms = (list: Array<{ asset_key: string; available_atoms: string }>) => new Map(list.map((b) => [b.asset_key, BigInt(b.available_atoms)]));
  const mine = atoms(app.balances);
  const theirs = atoms(truth.balances);
  const assets = [...new Set([...theirs.keys(), ...mine.keys()])].sort();
  for (const asset_key of assets) {
    const a = mine.get(asset_key) ?? 0n;
    const p = theirs.get(asset_key) ?? 0n;
    if (a !== p) return { entity_type: 'balance', entity_id: `${account_id} ${asset_key}`, field: 'available_atoms', app: a.toString(), provider: p.toString() };
  }
  return null;
}
