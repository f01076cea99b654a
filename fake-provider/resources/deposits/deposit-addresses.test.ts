// Deposit addresses over real HTTP: provisioning (idempotent, wallet readiness, operability), one on-chain
// address per chain while monitored, listing, expiry, single-use zap addresses, and every error code.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestSim } from '../../testing/harness.ts';
import { lifecycle } from '../../engine/index.ts';
import { accountMachine, accountStore } from '../accounts/index.ts';
import { assetByKey } from '../assets/index.ts';
import { createZapDepositAddress } from './addresses.ts';
import {
  ARB_ETH,
  ARB_USDC,
  ETH_USDC,
  deposit,
  land,
  newDepositAddress,
  newOrgKey,
  readyAccount,
  startDepositSim,
} from '../../testing/fixtures/deposits.ts';

let sim: TestSim;
beforeAll(async () => {
  sim = await startDepositSim();
});
afterAll(() => sim.close());

const path = (account_id: string): string => `/accounts/${account_id}/deposit-addresses`;

describe('POST deposit-addresses', () => {
  it('answers 404 not_available until the chain’s account.wallet_created, then a deposit_address', async () => {
    const account_id = (await sim.api('POST', '/accounts', { body: {} })).body.account.account_id;
    const early = await sim.api('POST', path(account_id), { body: { asset_key: 'native.btc' } });
    expect(early.status).toBe(404);
    expect(early.body.error).toMatchObject({ code: 'not_available', param: 'account_id' });
    expect(early.body.error.message).toMatch(/account\.wallet_created/);
    await sim.advance(10_000);
    const r = await sim.api('POST', path(account_id), { body: { asset_key: 'native.btc' } });
    expect(r.status).toBe(200);
    expect(r.body.request_id).toMatch(/^req_/);
    expect(r.body.deposit_address).toEqual({
      deposit_address_id: expect.any(String),
      asset_key: 'native.btc',
      address: expect.stringMatching(/^bc1q/),
      memo: null,
      tag: null,
    });
  });

  it('gives every asset of one chain the same on-chain address, and another chain another one', async () => {
    const account_id = await readyAccount(sim);
    const eth = await newDepositAddress(sim, account_id, ARB_ETH);
    const usdc = await newDepositAddress(sim, account_id, ARB_USDC);
    const mainnet = await newDepositAddress(sim, account_id, ETH_USDC);
    const sol = await newDepositAddress(sim, account_id, 'native.solana');
    const zec = await newDepositAddress(sim, account_id, 'native.zec');
    expect(usdc.deposit_address_id).not.toBe(eth.deposit_address_id);
    expect(usdc.address).toBe(eth.address);
    expect(eth.address).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(mainnet.address).not.toBe(eth.address);
    expect(sol.address).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
    expect(zec.address).toMatch(/^t1[1-9A-HJ-NP-Za-km-z]{33}$/);
    // Deposit addresses are ephemeral: not the account's own chain wallet.
    const wallet = accountStore(sim.running.runtime.world).byId.get(account_id)!.wallets.get('evm:42161')!;
    expect(eth.address).not.toBe(wallet.address);
    const other = await readyAccount(sim);
    expect((await newDepositAddress(sim, other, ARB_ETH)).address).not.toBe(eth.address);
  });

  it('accepts a symbol, replays the same Idempotency-Key with the same deposit_address_id, and requires the key', async () => {
    const account_id = await readyAccount(sim);
    expect((await sim.api('PUT', '/symbols', { body: { symbols: [{ symbol: 'ARBUSDC', asset_key: ARB_USDC }] } })).status).toBe(200);
    const a = await sim.api('POST', path(account_id), { body: { symbol: 'arbusdc' }, idem: 'dpa-1' });
    expect(a.status).toBe(200);
    expect(a.body.deposit_address.asset_key).toBe(ARB_USDC);
    const b = await sim.api('POST', path(account_id), { body: { symbol: 'arbusdc' }, idem: 'dpa-1' });
    expect(b.body.deposit_address).toEqual(a.body.deposit_address);
    const c = await sim.api('POST', path(account_id), { body: { asset_key: ARB_USDC }, idem: 'dpa-1' });
    expect(c.status).toBe(409);
    expect(c.body.error.code).toBe('idempotency_key_reuse');
    const none = await sim.api('POST', path(account_id), { body: { asset_key: ARB_USDC }, idem: '' });
    expect(none.body.error).toMatchObject({ code: 'parameter_missing', param: 'Idempotency-Key' });
  });

  it('refuses bad bodies with the right code and creates nothing', async () => {
    const account_id = await readyAccount(sim);
    const cases: Array<[unknown, number, string, string]> = [
      [{}, 400, 'parameter_missing', 'asset_key'],
      [{ asset_key: ARB_ETH, symbol: 'X1' }, 400, 'invalid_parameter', 'symbol'],
      [{ asset_key: 'NATIVE.BTC' }, 400, 'invalid_asset_key', 'asset_key'],
      [{ asset_key: 'native.evm:10' }, 404, 'asset_not_supported', 'asset_key'],
      [{ symbol: 'NOPE' }, 404, 'symbol_not_found', 'symbol'],
      [{ symbol: '-x' }, 400, 'invalid_symbol', 'symbol'],
      [{ asset_key: 5 }, 400, 'invalid_parameter', 'asset_key'],
    ];
    for (const [body, status, code, param] of cases) {
      const r = await sim.api('POST', path(account_id), { body });
      expect([r.status, r.body.error?.code, r.body.error?.param], JSON.stringify(body)).toEqual([status, code, param]);
    }
    expect((await sim.api('GET', path(account_id))).body.deposit_addresses).toEqual([]);
  });

  it('refuses deactivated accounts with 409 account_not_operable, and other organizations’ accounts with 404', async () => {
    const account_id = await readyAccount(sim);
    await sim.api('POST', `/accounts/${account_id}/deactivate`);
    const r = await sim.api('POST', path(account_id), { body: { asset_key: ARB_ETH } });
    expect(r.status).toBe(409);
    expect(r.body.error.code).toBe('account_not_operable');
    const key = await newOrgKey(sim);
    const mine = await readyAccount(sim);
    for (const [method, body] of [
      ['POST', { asset_key: ARB_ETH }],
      ['GET', undefined],
    ] as const) {
      const x = await sim.api(method, path(mine), { body, key });
      expect([x.status, x.body.error.code]).toEqual([404, 'account_not_found']);
    }
  });
});

describe('GET deposit-addresses', () => {
  it('lists oldest first, filters by asset_key and pages with cursors', async () => {
    const account_id = await readyAccount(sim);
    const made = [];
    for (const asset_key of [ARB_ETH, ARB_USDC, ARB_ETH, 'native.btc', ARB_ETH])
      made.push((await newDepositAddress(sim, account_id, asset_key)).deposit_address_id);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const r: any = await sim.api('GET', `${path(account_id)}?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(r.status).toBe(200);
      seen.push(...r.body.deposit_addresses.map((d: any) => d.deposit_address_id));
      cursor = r.body.next_cursor;
      expect(r.body.has_more).toBe(cursor !== null);
    } while (cursor);
    expect(seen).toEqual(made);
    const eth = (await sim.api('GET', `${path(account_id)}?asset_key=${ARB_ETH}`)).body.deposit_addresses;
    expect(eth.map((d: any) => d.deposit_address_id)).toEqual([made[0], made[2], made[4]]);
    expect((await sim.api('GET', `${path(account_id)}?asset_key=bogus`)).body.error.code).toBe('invalid_asset_key');
    expect((await sim.api('GET', `${path(account_id)}?asset_key=native.evm:10`)).body.error.code).toBe('asset_not_supported');
    expect((await sim.api('GET', `${path(account_id)}?limit=0`)).body.error).toMatchObject({ code: 'invalid_parameter', param: 'limit' });
    expect((await sim.api('GET', `${path(account_id)}?cursor=zzz`)).body.error).toMatchObject({
      code: 'invalid_parameter',
      param: 'cursor',
    });
  });
});

describe('monitoring window', () => {
  it('refuses a deposit after deposit_address_ttl_ms with 409 deposit_window_closed, and issues a new on-chain address', async () => {
    const account_id = await readyAccount(sim);
    const da = await newDepositAddress(sim, account_id, ARB_ETH);
    const ttl = sim.running.runtime.world.profile.deposit_address_ttl_ms;
    await sim.advance(ttl - 1);
    expect((await newDepositAddress(sim, account_id, ARB_USDC)).address).toBe(da.address);
    expect((await land(sim, { deposit_address_id: da.deposit_address_id, atoms: '1' })).status).toBe(200);
    await sim.advance(1);
    const late = await land(sim, { deposit_address_id: da.deposit_address_id, atoms: '1' });
    expect(late.status).toBe(409);
    expect(late.body.error).toMatchObject({ code: 'deposit_window_closed', param: 'deposit_address_id' });
    expect(await deposit(sim, da.deposit_address_id)).toHaveLength(1);
    // The USDC address issued a millisecond before expiry keeps the on-chain address alive; later ones share it.
    expect((await newDepositAddress(sim, account_id, ARB_ETH)).address).toBe(da.address);
    await sim.advance(ttl);
    expect((await newDepositAddress(sim, account_id, ARB_ETH)).address).not.toBe(da.address);
  });
});

describe('exported accounts', () => {
  it('stop monitoring their deposit addresses: 409 deposit_window_closed', async () => {
    // The export flow is another resource's; drive the account machine to `exported` directly, in a world of its own.
    const own = await startDepositSim();
    try {
      const account_id = await readyAccount(own);
      const da = await newDepositAddress(own, account_id, ARB_ETH);
      const account = accountStore(own.running.runtime.world).byId.get(account_id)!;
      for (const event of [{ type: 'EXPORT', export_source: 'integrator' }, { type: 'SETTLEMENTS_RESOLVED' }] as const) {
        account.snapshot = lifecycle(accountMachine).send(own.running.runtime.world, account_id, account.snapshot, event)!.snapshot;
      }
      const r = await land(own, { deposit_address_id: da.deposit_address_id, atoms: '1' });
      expect([r.status, r.body.error.code]).toEqual([409, 'deposit_window_closed']);
      expect(await deposit(own, da.deposit_address_id)).toEqual([]);
    } finally {
      await own.close();
    }
  });
});

describe('zap deposit addresses', () => {
  it('are fresh every time, and a second deposit to one is recorded as a repeat', async () => {
    const account_id = await readyAccount(sim);
    const world = sim.running.runtime.world;
    const account = accountStore(world).byId.get(account_id)!;
    const a = createZapDepositAddress(world, account, assetByKey(ARB_ETH)!);
    const b = createZapDepositAddress(world, account, assetByKey(ARB_ETH)!);
    expect(a.single_use).toBe(true);
    expect(a.address).not.toBe(b.address);
    const shared = await newDepositAddress(sim, account_id, ARB_ETH);
    expect([a.address, b.address]).not.toContain(shared.address);
    await land(sim, { deposit_address_id: a.deposit_address_id, atoms: '10' });
    await land(sim, { deposit_address_id: a.deposit_address_id, atoms: '11' });
    expect((await deposit(sim, a.deposit_address_id)).map((d: any) => d.repeat_on_single_use)).toEqual([false, true]);
  });

  it('keeps every invariant', async () => {
    await sim.settle();
    expect(await sim.invariants()).toMatchObject({ ok: true, violations: [] });
  });
});
