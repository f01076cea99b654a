// Compares what the app believes about one account (GET /probe/state) with the provider's truth, entity by
// entity, and names the first difference: trades, zaps and cancels by status first (the most telling), then
// entities only one side knows, then the optional members an app may track (deposits, recoveries, destinations:
// compared only when the app's state has them), then available balances per asset (a missing asset counts as 0).
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
  for (const [field, key] of [
    ['balances', 'asset_key'],
    ['trades', 'trade_id'],
    ['zaps', 'zap_id'],
    ['cancels', 'cancel_id'],
  ] as const) {
    const list = b[field];
    if (!Array.isArray(list)) return `${field} must be an array`;
    for (const item of list) {
      if (typeof item !== 'object' || item === null || typeof (item as Record<string, unknown>)[key] !== 'string')
        return `each of ${field} needs a string ${key}`;
      const value = field === 'balances' ? (item as Record<string, unknown>).available_atoms : (item as Record<string, unknown>).status;
      if (typeof value !== 'string' || (field === 'balances' && !/^-?[0-9]+$/.test(value))) {
        return field === 'balances' ? 'each balance needs available_atoms as an integer string' : `each of ${field} needs a string status`;
      }
    }
  }
  for (const [field, check] of OPTIONAL) {
    if (b[field] === undefined) continue;
    if (!Array.isArray(b[field])) return `${field}, when present, must be an array`;
    for (const item of b[field] as unknown[]) {
      const problem = typeof item === 'object' && item !== null ? check(item as Record<string, unknown>) : 'an object';
      if (problem) return `each of ${field} needs ${problem}`;
    }
  }
  return null;
}

const str = (v: unknown): boolean => typeof v === 'string' && v.length > 0;

/** The optional members and what each item needs. */
const OPTIONAL: Array<[string, (i: Record<string, unknown>) => string | null]> = [
  [
    'deposits',
    (i) =>
      !str(i.deposit_address_id) && !str(i.tx_hash)
        ? 'a deposit_address_id or tx_hash'
        : !str(i.status)
          ? 'a string status'
          : typeof i.credited !== 'boolean'
            ? 'credited as a boolean'
            : null,
  ],
  ['recoveries', (i) => (!str(i.recovery_id) ? 'a string recovery_id' : !str(i.status) ? 'a string status' : null)],
  [
    'destinations',
    (i) => (!str(i.destination_id) ? 'a string destination_id' : typeof i.suspended !== 'boolean' ? 'suspended as a boolean' : null),
  ],
];

/** The optional members, where the app reports them: each entry against the provider's, and what the provider has that the app must know of. */
function optionalDivergence(app: ProbeState, truth: AccountTruth): VerifyDivergence | null {
  if (app.deposits && truth.deposits) {
    for (const d of app.deposits) {
      const key = d.tx_hash ?? d.deposit_address_id;
      // By tx_hash when the app has it; by address otherwise (the latest deposit there).
      const t = d.tx_hash
        ? truth.deposits.find((x) => x.tx_hash === d.tx_hash)
        : truth.deposits.filter((x) => x.deposit_address_id === d.deposit_address_id).at(-1);
      if (!t) return { entity_type: 'deposit', entity_id: key, field: 'status', app: d.status, provider: null };
      // Dropped before finality: no event ends it, so the app cannot know (the zap it funded fails, with its code).
      if (t.status === 'dropped') continue;
      if (d.status !== t.status) return { entity_type: 'deposit', entity_id: key, field: 'status', app: d.status, provider: t.status };
      if (d.credited !== t.credited)
        return { entity_type: 'deposit', entity_id: key, field: 'credited', app: d.credited, provider: t.credited };
    }
    // Every deposit announces itself (deposit.pending): one the app does not list is one it lost.
    for (const t of truth.deposits) {
      if (t.status === 'dropped') continue;
      if (!app.deposits.some((d) => (d.tx_hash ? d.tx_hash === t.tx_hash : d.deposit_address_id === t.deposit_address_id)))
        return { entity_type: 'deposit', entity_id: t.deposit_address_id, field: 'status', app: null, provider: t.status };
    }
  }
  if (app.recoveries && truth.recoveries) {
    const mine = new Map(app.recoveries.map((r) => [r.recovery_id, r.status]));
    for (const t of truth.recoveries) {
      const status = mine.get(t.recovery_id) ?? null;
      // Activation sends no event: an app that knows it was activated may say `active` where the events say `created`.
      if (status !== t.status && !(status === 'active' && t.status === 'created'))
        return { entity_type: 'recovery', entity_id: t.recovery_id, field: 'status', app: status, provider: t.status };
    }
  }
  if (app.destinations && truth.destinations) {
    for (const d of app.destinations) {
      const t = truth.destinations.find((x) => x.destination_id === d.destination_id);
      if (t && t.suspended !== d.suspended)
        return { entity_type: 'destination', entity_id: d.destination_id, field: 'suspended', app: d.suspended, provider: t.suspended };
    }
    // A suspension is announced (destination.suspended): a suspended destination the app does not list is one it missed.
    for (const t of truth.destinations) {
      if (t.suspended && !app.destinations.some((d) => d.destination_id === t.destination_id))
        return { entity_type: 'destination', entity_id: t.destination_id, field: 'suspended', app: null, provider: true };
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
  const optional = optionalDivergence(app, truth);
  if (optional) return optional;
  const atoms = (list: Array<{ asset_key: string; available_atoms: string }>) =>
    new Map(list.map((b) => [b.asset_key, BigInt(b.available_atoms)]));
  const mine = atoms(app.balances);
  const theirs = atoms(truth.balances);
  const assets = [...new Set([...theirs.keys(), ...mine.keys()])].sort();
  for (const asset_key of assets) {
    const a = mine.get(asset_key) ?? 0n;
    const p = theirs.get(asset_key) ?? 0n;
    if (a !== p)
      return {
        entity_type: 'balance',
        entity_id: `${account_id} ${asset_key}`,
        field: 'available_atoms',
        app: a.toString(),
        provider: p.toString(),
      };
  }
  return null;
}
