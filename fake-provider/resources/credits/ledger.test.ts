// The ledger functions on a bare world: create once per source, lock/release/consume with every refusal,
// pending amounts, balances, the credit machine's edges, and invariants that can actually fail.
import { describe, expect, it } from 'vitest';
import { createSimKernel } from '../../../sim/index.ts';
import { createWorld, type World } from '../../world.ts';
import { DEFAULT_PROFILE } from '../../profile.ts';
import { ApiError } from '../../contract/errors.ts';
import { edgesOf } from '../../engine/index.ts';
import { creditInvariants } from './invariants.ts';
import { creditMachine } from './machine.ts';
import {
  addPending,
  balancesOf,
  clearPending,
  consumeCredit,
  createCredit,
  creditForSource,
  creditHolder,
  creditSnapshot,
  creditStatus,
  creditStore,
  listCredits,
  lockCredit,
  releaseCredit,
  requireCredit,
} from './model.ts';

const USDC = 'erc20.evm:42161_0xaf88d065e77c8cc2239327c5edb3a432268e5831';
const ETH = 'native.evm:42161';

function newWorld(): World {
  return createWorld({ sim: createSimKernel({ seed: 'ledger' }), profile: DEFAULT_PROFILE });
}

let n = 0;
function credit(world: World, atoms = 100n, asset_key = USDC, account_id = 'acct_a') {
  return createCredit(world, { org_id: 'org_1', account_id, asset_key, atoms, source_type: 'deposit', source_id: `tx_${++n}` });
}

function code(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (e instanceof ApiError) return e.code;
    throw e;
  }
  return 'no error';
}

describe('createCredit', () => {
  it('creates an open credit, publishes credit.created and counts it as available', () => {
    const world = newWorld();
    const c = credit(world, 250n);
    expect(creditStatus(c)).toBe('open');
    const e = world.events.all.at(-1)!.envelope;
    expect(e).toMatchObject({
      type: 'credit.created',
      account_id: 'acct_a',
      data: { credit_id: c.credit_id, asset_key: USDC, atoms: '250', source_type: 'deposit' },
    });
    expect(balancesOf(world, 'acct_a')).toMatchObject([{ asset_key: USDC, available_atoms: 250n, pending_atoms: 0n }]);
  });

  it('refuses a second credit from the same source and role, allows another role, refuses non-positive atoms', () => {
    const world = newWorld();
    const input = {
      org_id: 'org_1',
      account_id: 'acct_a',
      asset_key: ETH,
      atoms: 5n,
      source_type: 'trade_settlement' as const,
      source_id: 'trade_1',
    };
    createCredit(world, input);
    expect(() => createCredit(world, input)).toThrow(/already exists/);
    expect(creditStatus(createCredit(world, { ...input, role: 'zap_change' }))).toBe('open');
    expect(() => createCredit(world, { ...input, source_id: 'trade_2', atoms: 0n })).toThrow(/positive/);
    expect(creditStore(world).list).toHaveLength(2);
  });

  it('finds each credit of a source, whether the source made one, two or three (stored as one, a pair, then a list)', () => {
    const world = newWorld();
    const input = { org_id: 'org_1', account_id: 'acct_a', asset_key: ETH, atoms: 5n, source_id: 'zap_1' };
    const settlement = createCredit(world, { ...input, source_type: 'trade_settlement' });
    expect(creditForSource(world, 'trade_settlement', 'zap_1')).toBe(settlement);
    expect(creditForSource(world, 'change', 'zap_1')).toBeUndefined();
    const change = createCredit(world, { ...input, source_type: 'change' });
    const extra = createCredit(world, { ...input, source_type: 'change', role: 'zap_change' });
    expect([
      creditForSource(world, 'trade_settlement', 'zap_1'),
      creditForSource(world, 'change', 'zap_1'),
      creditForSource(world, 'change', 'zap_1', 'zap_change'),
    ]).toEqual([settlement, change, extra]);
    expect([settlement.role, change.role, extra.role]).toEqual(['trade_settlement', 'change', 'zap_change']);
    for (const type of ['trade_settlement', 'change'] as const)
      expect(() => createCredit(world, { ...input, source_type: type })).toThrow(/already exists/);
    expect(creditForSource(world, 'deposit', 'zap_1')).toBeUndefined();
    expect(creditForSource(world, 'change', 'zap_2')).toBeUndefined();
  });

  it('credit.created carries the amount in decimal, rebuilt from the credit on every read (the store keeps no copy)', () => {
    const world = newWorld();
    const input = {
      org_id: 'org_1',
      account_id: 'acct_a',
      asset_key: ETH,
      atoms: 2_000_000_000_000_000_000n,
      source_type: 'deposit' as const,
    };
    const a = createCredit(world, { ...input, source_id: 'tx_a' });
    createCredit(world, { ...input, source_id: 'tx_b', atoms: 7n });
    const read = () => world.events.all.map((e) => e.envelope.data);
    expect(read()).toEqual([
      { credit_id: a.credit_id, asset_key: ETH, atoms: '2000000000000000000', source_type: 'deposit' },
      expect.objectContaining({ atoms: '7' }),
    ]);
    expect(JSON.stringify(read())).toBe(JSON.stringify(read()));
    expect(read().every((d) => Object.isFrozen(d))).toBe(true);
  });
});

describe('lock, release, consume', () => {
  it('a locked credit is refused to others until released, and stays available while locked', () => {
    const world = newWorld();
    const c = credit(world);
    lockCredit(world, c.credit_id, 'trade_1');
    expect(lockCredit(world, c.credit_id, 'trade_1').credit_id).toBe(c.credit_id); // idempotent for the holder
    expect(code(() => lockCredit(world, c.credit_id, 'zap_1'))).toBe('credit_in_use');
    expect(code(() => consumeCredit(world, c.credit_id, 'zap_1'))).toBe('credit_in_use');
    expect(balancesOf(world, 'acct_a')[0].available_atoms).toBe(100n);
    expect(releaseCredit(world, c.credit_id, 'zap_1')).toBe(false);
    expect(creditHolder(c)).toBe('trade_1');
    expect(releaseCredit(world, c.credit_id, 'trade_1')).toBe(true);
    expect(releaseCredit(world, c.credit_id, 'trade_1')).toBe(false);
    lockCredit(world, c.credit_id, 'zap_1');
    expect(creditHolder(c)).toBe('zap_1');
  });

  it('consumes exactly once: open → consumed, then every use is credit_already_consumed', () => {
    const world = newWorld();
    const c = credit(world, 70n);
    lockCredit(world, c.credit_id, 'cancel_1');
    consumeCredit(world, c.credit_id, 'cancel_1');
    expect(creditStatus(c)).toBe('consumed');
    expect(c.consumed_at_ms).toBe(world.sim.now_ms());
    // Kept as the consumer's id and rebuilt on read: the same snapshot the machine's step made.
    expect(JSON.stringify(creditSnapshot(c))).toBe(
      '{"value":"consumed","context":{"holder_id":null,"consumed_by":"cancel_1"},"status":"done"}',
    );
    expect(code(() => consumeCredit(world, c.credit_id, 'cancel_1'))).toBe('credit_already_consumed');
    expect(code(() => lockCredit(world, c.credit_id, 'trade_9'))).toBe('credit_already_consumed');
    expect(releaseCredit(world, c.credit_id, 'cancel_1')).toBe(false);
    expect(balancesOf(world, 'acct_a')).toEqual([]);
    expect(listCredits(world, 'acct_a', { status: 'consumed' }).items).toEqual([c]);
    expect(listCredits(world, 'acct_a', {}).items).toEqual([]);
    expect(creditInvariants(world)).toEqual([]);
  });

  it('consumes a free credit in one step', () => {
    const world = newWorld();
    const c = credit(world);
    consumeCredit(world, c.credit_id, 'trade_2');
    expect(creditStatus(c)).toBe('consumed');
  });

  it('answers not_found for unknown credits and other organizations’ or accounts’ credits', () => {
    const world = newWorld();
    const c = credit(world);
    expect(requireCredit(world, 'org_1', c.credit_id)).toBe(c);
    expect(requireCredit(world, 'org_1', c.credit_id, { account_id: 'acct_a' })).toBe(c);
    expect(code(() => requireCredit(world, 'org_2', c.credit_id))).toBe('not_found');
    expect(code(() => requireCredit(world, 'org_1', c.credit_id, { account_id: 'acct_b' }))).toBe('not_found');
    expect(code(() => lockCredit(world, 'cred_nope', 'x'))).toBe('not_found');
    expect(code(() => consumeCredit(world, 'cred_nope', 'x'))).toBe('not_found');
  });

  it('the credit machine’s edges are all taken', () => {
    const world = newWorld();
    const c = credit(world);
    lockCredit(world, c.credit_id, 'h');
    releaseCredit(world, c.credit_id, 'h');
    consumeCredit(world, c.credit_id, 'h');
    const taken = new Set(
      world.transitions.records.filter((r) => r.kind === 'credit' && r.from !== null).map((r) => `${r.from}|${r.event}|${r.to}`),
    );
    for (const e of edgesOf(creditMachine)) expect(taken).toContain(`${e.from}|${e.event}|${e.to}`);
  });
});

describe('pending amounts and balances', () => {
  it('sums pending per asset, keeps first-seen order, and drops rows that hold nothing', () => {
    const world = newWorld();
    addPending(world, { account_id: 'acct_a', asset_key: ETH, key: 'deposit:1', atoms: 5n });
    addPending(world, { account_id: 'acct_a', asset_key: ETH, key: 'deposit:2', atoms: 7n });
    credit(world, 3n, USDC);
    addPending(world, { account_id: 'acct_b', asset_key: ETH, key: 'deposit:3', atoms: 1n });
    expect(balancesOf(world, 'acct_a').map((b) => [b.asset_key, b.available_atoms, b.pending_atoms])).toEqual([
      [ETH, 0n, 12n],
      [USDC, 3n, 0n],
    ]);
    expect(clearPending(world, 'deposit:1')).toBe(true);
    expect(clearPending(world, 'deposit:1')).toBe(false);
    clearPending(world, 'deposit:2');
    expect(balancesOf(world, 'acct_a').map((b) => b.asset_key)).toEqual([USDC]);
    credit(world, 9n, ETH);
    expect(balancesOf(world, 'acct_a').map((b) => b.asset_key)).toEqual([ETH, USDC]);
    expect(() => addPending(world, { account_id: 'acct_a', asset_key: ETH, key: 'neg', atoms: -1n })).toThrow();
  });
});

describe('invariants', () => {
  it('hold on a consistent ledger and catch a drifted balance, a duplicate source, a reopened or unannounced credit', () => {
    const world = newWorld();
    const a = credit(world, 10n);
    const b = credit(world, 20n);
    consumeCredit(world, b.credit_id, 'h');
    expect(creditInvariants(world)).toEqual([]);
    const store = creditStore(world);

    const row = store.accounts.get('acct_a')!.rows.get(USDC)!;
    row.available_atoms = 11n;
    expect(creditInvariants(world).map((v) => v.invariant)).toContain('credits.available_is_sum_of_open');
    row.available_atoms = 10n;

    // A second credit of a's source, made in another world (so never announced in this one), slipped in.
    const elsewhere = createWorld({ sim: createSimKernel({ seed: 'elsewhere' }), profile: DEFAULT_PROFILE });
    const twin = createCredit(elsewhere, {
      org_id: 'org_1',
      account_id: 'acct_a',
      asset_key: USDC,
      atoms: a.atoms,
      source_type: 'deposit',
      source_id: a.source_id,
    });
    store.list.push(twin);
    const names = creditInvariants(world).map((v) => v.invariant);
    expect(names).toContain('credits.once_per_source');
    expect(names).toContain('credits.event_matches');
    expect(names).toContain('credits.conservation');
    store.list.pop();

    world.transitions.push({ kind: 'credit', entity_id: b.credit_id, from: 'consumed', event: 'REOPEN', to: 'open', at_ms: 0 });
    expect(creditInvariants(world).map((v) => v.invariant)).toContain('credits.consumed_never_reopens');
  });
});
