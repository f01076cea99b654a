// The mixed case's credit pool (mixed.ts) is handed from one run's generator to the next: what a run took is
// gone from what it hands back, so no credit is traded twice across rounds.
import { describe, expect, it } from 'vitest';
import type { Request as CannonRequest } from 'autocannon';
import { mixedLoad } from './mixed.ts';

const accounts = [
  { account_id: 'acc_a', destination_id: 'dst_a', credit_ids: ['cr_a1', 'cr_a2'] },
  { account_id: 'acc_b', destination_id: 'dst_b', credit_ids: ['cr_b1'] },
];

describe('mixedLoad pool', () => {
  it('hands back the credits no cycle took, and counts cycles that found none', () => {
    const load = mixedLoad(accounts, 'sk_test');
    const first = load.requests[0] as CannonRequest & { setupRequest: (r: CannonRequest, c: object) => CannonRequest };
    for (let i = 0; i < 4; i++) first.setupRequest({ method: 'GET' } as CannonRequest, {});
    expect(load.cycles()).toBe(4);
    // a, b, a, b: a gives both its credits, b its one, and the fourth cycle finds b empty.
    expect(load.exhausted()).toBe(1);
    expect(load.remaining().map((a) => a.credit_ids)).toEqual([[], []]);
    // The input is not consumed: the parent keeps its own copy until the child hands the pool back.
    expect(accounts[0].credit_ids).toEqual(['cr_a1', 'cr_a2']);
    const partial = mixedLoad(accounts, 'sk_test');
    (partial.requests[0] as typeof first).setupRequest({ method: 'GET' } as CannonRequest, {});
    expect(partial.remaining()).toEqual([
      { account_id: 'acc_a', destination_id: 'dst_a', credit_ids: ['cr_a1'] },
      { account_id: 'acc_b', destination_id: 'dst_b', credit_ids: ['cr_b1'] },
    ]);
  });
});
