// Properties of the delivery order (fast-check): always a permutation of the batch; `in_order` is the
// identity and draws nothing; shuffling keeps each account's order; `best_effort` moves an item at most
// one place within its account; the same seed gives the same order; some seed does reorder.
import { describe, expect } from 'vitest';
import { fc, it } from '@fast-check/vitest';
import { createRng } from '../../../sim/rng.ts';
import { deliveryOrder } from './order.ts';

interface Item {
  account: string;
  n: number;
}

const batchArb = fc
  .array(fc.constantFrom('a', 'b', 'c', 'd'), { maxLength: 30 })
  .map((accounts) => accounts.map((account, n): Item => ({ account, n })));
const accountOf = (i: Item) => i.account;
const ofAccount = (items: Item[], account: string) => items.filter((i) => i.account === account).map((i) => i.n);

describe('deliveryOrder', () => {
  it.prop([batchArb, fc.constantFrom('in_order', 'shuffle_across_accounts', 'best_effort' as const), fc.integer()])(
    'is a permutation of the batch, and the same seed gives the same order',
    (batch, setting, seed) => {
      const out = deliveryOrder(batch, accountOf, setting, createRng(seed, 'webhook-order'));
      expect([...out].sort((x, y) => x.n - y.n)).toEqual(batch);
      expect(deliveryOrder(batch, accountOf, setting, createRng(seed, 'webhook-order'))).toEqual(out);
    },
  );

  it.prop([batchArb, fc.integer()])('in_order is the identity and draws nothing', (batch, seed) => {
    const rng = createRng(seed, 'webhook-order');
    expect(deliveryOrder(batch, accountOf, 'in_order', rng)).toEqual(batch);
    expect(rng.next()).toBe(createRng(seed, 'webhook-order').next());
  });

  it.prop([batchArb, fc.integer()])('shuffle_across_accounts keeps every account’s own order', (batch, seed) => {
    const out = deliveryOrder(batch, accountOf, 'shuffle_across_accounts', createRng(seed, 'webhook-order'));
    for (const a of ['a', 'b', 'c', 'd']) expect(ofAccount(out, a)).toEqual(ofAccount(batch, a));
  });

  it.prop([batchArb, fc.integer()])('best_effort moves a delivery at most one place among its account’s', (batch, seed) => {
    const out = deliveryOrder(batch, accountOf, 'best_effort', createRng(seed, 'webhook-order'));
    for (const a of ['a', 'b', 'c', 'd']) {
      const before = ofAccount(batch, a);
      ofAccount(out, a).forEach((n, i) => expect(Math.abs(before.indexOf(n) - i)).toBeLessThanOrEqual(1));
    }
  });

  it('reorders for some seed: across accounts (shuffle) and within one account (best_effort)', () => {
    const two = [
      { account: 'a', n: 0 },
      { account: 'b', n: 1 },
    ];
    const seeds = Array.from({ length: 20 }, (_, s) => s);
    expect(seeds.some((s) => deliveryOrder(two, accountOf, 'shuffle_across_accounts', createRng(s, 'o'))[0].n === 1)).toBe(true);
    const one = [
      { account: 'a', n: 0 },
      { account: 'a', n: 1 },
    ];
    expect(seeds.every((s) => deliveryOrder(one, accountOf, 'shuffle_across_accounts', createRng(s, 'o'))[0].n === 0)).toBe(true);
    expect(seeds.some((s) => deliveryOrder(one, accountOf, 'best_effort', createRng(s, 'o'))[0].n === 1)).toBe(true);
  });
});
