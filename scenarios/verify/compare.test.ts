// The comparison verify relies on: each kind of divergence is found and named, in the documented order, and
// every malformed probe answer is refused with a reason.
import { describe, expect, it } from 'vitest';
import { firstDivergence, shapeProblem, type ProbeState } from './compare.ts';

const ETH = 'native.evm:42161';
const USDC = 'erc20.evm:42161_0xaf88d065e77c8cc2239327c5edb3a432268e5831';
const truth: ProbeState = {
  balances: [
    { asset_key: ETH, available_atoms: '100' },
    { asset_key: USDC, available_atoms: '0' },
  ],
  trades: [{ trade_id: 'trd_1', status: 'settled' }],
  zaps: [{ zap_id: 'zap_1', status: 'failed' }],
  cancels: [{ cancel_id: 'cxl_1', status: 'confirmed' }],
};
const same = (): ProbeState => structuredClone(truth);

describe('firstDivergence', () => {
  it('finds none when the app agrees (a zero balance may be left out)', () => {
    const app = same();
    app.balances = [{ asset_key: ETH, available_atoms: '100' }];
    expect(firstDivergence('acct_1', app, truth)).toBeNull();
  });

  it('names a status difference, a missing entity and one the provider does not have', () => {
    const wrong = same();
    wrong.trades[0].status = 'filled';
    expect(firstDivergence('acct_1', wrong, truth)).toEqual({
      entity_type: 'trade',
      entity_id: 'trd_1',
      field: 'status',
      app: 'filled',
      provider: 'settled',
    });
    const missing = same();
    missing.cancels = [];
    expect(firstDivergence('acct_1', missing, truth)).toEqual({
      entity_type: 'cancel',
      entity_id: 'cxl_1',
      field: 'status',
      app: null,
      provider: 'confirmed',
    });
    const extra = same();
    extra.zaps.push({ zap_id: 'zap_forged', status: 'executing' });
    expect(firstDivergence('acct_1', extra, truth)).toEqual({
      entity_type: 'zap',
      entity_id: 'zap_forged',
      field: 'status',
      app: 'executing',
      provider: null,
    });
  });

  it('names a balance difference per asset, after statuses', () => {
    const app = same();
    app.balances[0].available_atoms = '200';
    expect(firstDivergence('acct_1', app, truth)).toEqual({
      entity_type: 'balance',
      entity_id: `acct_1 ${ETH}`,
      field: 'available_atoms',
      app: '200',
      provider: '100',
    });
    app.trades[0].status = 'failed';
    expect(firstDivergence('acct_1', app, truth)?.entity_type).toBe('trade');
    const onlyApp = same();
    onlyApp.balances.push({ asset_key: 'native.solana', available_atoms: '5' });
    expect(firstDivergence('acct_1', onlyApp, truth)).toMatchObject({ entity_id: 'acct_1 native.solana', app: '5', provider: '0' });
  });
});

describe('shapeProblem', () => {
  it('accepts the contract shape', () => {
    expect(shapeProblem(truth)).toBeNull();
  });
  it.each([
    [null, 'JSON object'],
    [{ ...truth, balances: 'x' }, 'balances must be an array'],
    [{ ...truth, trades: [{ status: 'settled' }] }, 'string trade_id'],
    [{ ...truth, zaps: [{ zap_id: 'z', status: 3 }] }, 'string status'],
    [{ ...truth, balances: [{ asset_key: ETH, available_atoms: '1.5' }] }, 'integer string'],
    [{ balances: [], trades: [], zaps: [] }, 'cancels must be an array'],
  ])('refuses %j', (body, reason) => {
    expect(shapeProblem(body)).toContain(reason);
  });
});
