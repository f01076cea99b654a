// The deposit lifecycle over real HTTP on the virtual clock: pending → verified with its credit and
// balances, screening flags, the drop/flag/delay faults, /_sim/deposits validation, deactivated accounts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { base58 } from '@scure/base';
import { sha256 } from '@noble/hashes/sha2.js';
import { utf8ToBytes } from '@noble/hashes/utils.js';
import { deriveWallet } from '../accounts/index.ts';
import type { TestSim } from '../../testing/harness.ts';
import {
  ARB_ETH,
  ARB_FINALITY_MS,
  ARB_USDC,
  balancesOf,
  deposit,
  eventsOf,
  land,
  newDepositAddress,
  readyAccount,
  startDepositSim,
} from '../../testing/fixtures/deposits.ts';

let sim: TestSim;
beforeAll(async () => {
  sim = await startDepositSim();
});
afterAll(() => sim.close());

// A real Ethereum address (key 1) used as a deposit source the tests control.
const SOURCE = '0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf';

describe('a deposit from landing to verified', () => {
  it('publishes pending, counts pending_atoms, then at finality deposit.verified, credit.created and available_atoms', async () => {
    const account_id = await readyAccount(sim);
    const da = await newDepositAddress(sim, account_id, ARB_USDC);
    const r = await land(sim, { deposit_address_id: da.deposit_address_id, atoms: '2500000', source_address: SOURCE });
    expect(r.status).toBe(200);
    expect(r.body.deposit).toMatchObject({
      deposit_address_id: da.deposit_address_id,
      account_id,
      asset_key: ARB_USDC,
      atoms: '2500000',
      source_address: SOURCE,
      status: 'pending',
      confirmations: 0,
      required_confirmations: 20,
      credit_id: null,
    });
    expect(r.body.deposit.tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(eventsOf(sim, account_id, 'deposit.').map((e) => [e.type, e.data])).toEqual([
      ['deposit.pending', { deposit_address_id: da.deposit_address_id, asset_key: ARB_USDC, detected_atoms: '2500000' }],
    ]);
    expect(await balancesOf(sim, account_id)).toEqual({ [ARB_USDC]: { available_atoms: '0', pending_atoms: '2500000' } });

    await sim.advance(ARB_FINALITY_MS - 1);
    const mid = (await deposit(sim, da.deposit_address_id))[0];
    expect(mid).toMatchObject({ status: 'pending', confirmations: 19, screened: true });
    expect(eventsOf(sim, account_id, 'deposit.verified')).toHaveLength(0);

    await sim.advance(1);
    const done = (await deposit(sim, da.deposit_address_id))[0];
    expect(done).toMatchObject({ status: 'verified', confirmations: 20 });
    const tail = eventsOf(sim, account_id).filter((e) => e.type === 'deposit.verified' || e.type === 'credit.created');
    expect(tail.map((e) => e.type)).toEqual(['deposit.verified', 'credit.created']);
    expect(tail[0].data).toEqual({
      deposit_address_id: da.deposit_address_id,
      credit_id: done.credit_id,
      asset_key: ARB_USDC,
      credited_atoms: '2500000',
      source_address: SOURCE,
    });
    expect(tail[1].data).toEqual({ credit_id: done.credit_id, asset_key: ARB_USDC, atoms: '2500000', source_type: 'deposit' });
    expect(await balancesOf(sim, account_id)).toEqual({ [ARB_USDC]: { available_atoms: '2500000', pending_atoms: '0' } });
    const credits = (await sim.api('GET', `/accounts/${account_id}/credits`)).body.credits;
    expect(credits).toEqual([
      {
        credit_id: done.credit_id,
        account_id,
        asset_key: ARB_USDC,
        atoms: '2500000',
        status: 'open',
        source_type: 'deposit',
        source_id: done.tx_hash,
        created_at_ms: tail[1].created_at_ms,
      },
    ]);
  });

  it('credits every deposit to the same address separately and keeps BigInt amounts exact', async () => {
    const account_id = await readyAccount(sim);
    const da = await newDepositAddress(sim, account_id, ARB_ETH);
    const big = '123456789012345678901234567890';
    await land(sim, { deposit_address_id: da.deposit_address_id, atoms: big });
    await land(sim, { deposit_address_id: da.deposit_address_id, atoms: '1' });
    expect((await balancesOf(sim, account_id))[ARB_ETH]).toEqual({ available_atoms: '0', pending_atoms: '123456789012345678901234567891' });
    await sim.settle();
    expect((await balancesOf(sim, account_id))[ARB_ETH]).toEqual({ available_atoms: '123456789012345678901234567891', pending_atoms: '0' });
    expect((await sim.api('GET', `/accounts/${account_id}/credits`)).body.credits.map((c: any) => c.atoms)).toEqual([big, '1']);
  });

  it('defaults asset, tx_hash and source address in each chain’s real format', async () => {
    const account_id = await readyAccount(sim);
    const shapes: Array<[string, RegExp, RegExp]> = [
      ['native.btc', /^[0-9a-f]{64}$/, /^bc1q[02-9ac-hj-np-z]{38}$/],
      ['native.zec', /^[0-9a-f]{64}$/, /^t1[1-9A-HJ-NP-Za-km-z]{33}$/],
      ['native.evm:1', /^0x[0-9a-f]{64}$/, /^0x[0-9a-fA-F]{40}$/],
      ['native.solana', /^[1-9A-HJ-NP-Za-km-z]{80,90}$/, /^[1-9A-HJ-NP-Za-km-z]{32,44}$/],
    ];
    for (const [asset_key, tx, source] of shapes) {
      const da = await newDepositAddress(sim, account_id, asset_key);
      const d = (await land(sim, { deposit_address_id: da.deposit_address_id, atoms: '1000' })).body.deposit;
      expect(d.asset_key).toBe(asset_key);
      expect(d.tx_hash).toMatch(tx);
      expect(d.source_address).toMatch(source);
      if (asset_key === 'native.solana') expect(base58.decode(d.tx_hash)).toHaveLength(64);
    }
  });

  it('accepts a different asset of the same chain and refuses one from another chain', async () => {
    const account_id = await readyAccount(sim);
    const da = await newDepositAddress(sim, account_id, ARB_ETH);
    const ok = await land(sim, { deposit_address_id: da.deposit_address_id, atoms: '5', asset_key: ARB_USDC });
    expect(ok.body.deposit.asset_key).toBe(ARB_USDC);
    const wrong = await land(sim, { deposit_address_id: da.deposit_address_id, atoms: '5', asset_key: 'native.evm:1' });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toMatchObject({ code: 'invalid_parameter', param: 'asset_key' });
  });

  it('validates the control call and changes nothing on a refusal', async () => {
    const account_id = await readyAccount(sim);
    const da = await newDepositAddress(sim, account_id, ARB_ETH);
    const id = da.deposit_address_id;
    const cases: Array<[Record<string, unknown>, number, string, string | undefined]> = [
      [{ deposit_address_id: 'dpa_nope', atoms: '1' }, 404, 'not_found', 'deposit_address_id'],
      [{ deposit_address_id: id }, 400, 'parameter_missing', 'atoms'],
      [{ atoms: '1' }, 400, 'parameter_missing', 'deposit_address_id'],
      [{ deposit_address_id: id, atoms: '0' }, 400, 'invalid_parameter', 'atoms'],
      [{ deposit_address_id: id, atoms: '-5' }, 400, 'invalid_parameter', 'atoms'],
      [{ deposit_address_id: id, atoms: '1.5' }, 400, 'invalid_parameter', 'atoms'],
      [{ deposit_address_id: id, atoms: 7 }, 400, 'invalid_parameter', 'atoms'],
      [{ deposit_address_id: id, atoms: '1', asset_key: 'NATIVE.BTC' }, 400, 'invalid_asset_key', 'asset_key'],
      [{ deposit_address_id: id, atoms: '1', asset_key: 'native.evm:10' }, 404, 'asset_not_supported', 'asset_key'],
      [
        { deposit_address_id: id, atoms: '1', source_address: 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4' },
        400,
        'invalid_parameter',
        'source_address',
      ],
      [{ deposit_address_id: id, atoms: '1', tx_hash: 'abc' }, 400, 'invalid_parameter', 'tx_hash'],
    ];
    for (const [body, status, code, param] of cases) {
      const r = await land(sim, body);
      expect([r.status, r.body.error?.code, r.body.error?.param], JSON.stringify(body)).toEqual([status, code, param]);
    }
    const tx_hash = `0x${'ab'.repeat(32)}`;
    expect((await land(sim, { deposit_address_id: id, atoms: '1', tx_hash })).status).toBe(200);
    const again = await land(sim, { deposit_address_id: id, atoms: '1', tx_hash: tx_hash.toUpperCase().replace('0X', '0x') });
    expect(again.body.error).toMatchObject({ code: 'invalid_parameter', param: 'tx_hash' });
    expect(await deposit(sim, id)).toHaveLength(1);
    expect(eventsOf(sim, account_id, 'deposit.pending')).toHaveLength(1);
  });

  it('refuses a tx_hash any earlier deposit landed with, a default one included, before and after the first lookup', async () => {
    const account_id = await readyAccount(sim);
    const id = (await newDepositAddress(sim, account_id, ARB_ETH)).deposit_address_id;
    const landed = async (body: Record<string, unknown> = {}): Promise<string> => {
      const r = await land(sim, { deposit_address_id: id, atoms: '1', ...body });
      expect(r.status).toBe(200);
      return r.body.deposit.tx_hash;
    };
    const first = await landed();
    await landed();
    for (const tx_hash of [first, await landed({ tx_hash: `0x${'cd'.repeat(32)}` }), await landed()]) {
      const again = await land(sim, { deposit_address_id: id, atoms: '1', tx_hash });
      expect(again.body.error).toMatchObject({ code: 'invalid_parameter', param: 'tx_hash' });
    }
    expect(await deposit(sim, id)).toHaveLength(4);
  });

  it('still runs deposits landing on a deactivated account (the funds are on chain)', async () => {
    const account_id = await readyAccount(sim);
    const da = await newDepositAddress(sim, account_id, ARB_ETH);
    expect((await sim.api('POST', `/accounts/${account_id}/deactivate`)).status).toBe(200);
    expect((await land(sim, { deposit_address_id: da.deposit_address_id, atoms: '42' })).status).toBe(200);
    await sim.settle();
    expect((await deposit(sim, da.deposit_address_id))[0].status).toBe('verified');
    expect((await balancesOf(sim, account_id))[ARB_ETH].available_atoms).toBe('42');
  });
});

describe('screening', () => {
  it.each(['sanctions_match', 'high_risk_score', 'mixer_association'])(
    'a source flagged %s yields deposit.flagged by routes, no credit',
    async (flag_reason) => {
      const account_id = await readyAccount(sim);
      const da = await newDepositAddress(sim, account_id, ARB_USDC);
      const source = deriveWallet('evm:42161', sha256(utf8ToBytes(flag_reason))).address;
      expect((await sim.control('POST', '/screening/addresses', { address: source, flag_reason })).status).toBe(200);
      const d = (await land(sim, { deposit_address_id: da.deposit_address_id, atoms: '900', source_address: source })).body.deposit;
      await sim.advance(3_000);
      const after = (await deposit(sim, da.deposit_address_id))[0];
      expect(after).toMatchObject({ status: 'flagged', flag_reason, flagged_by: 'routes', credit_id: null });
      const flagged = eventsOf(sim, account_id, 'deposit.flagged');
      expect(flagged).toHaveLength(1);
      expect(flagged[0].data).toEqual({
        deposit_address_id: da.deposit_address_id,
        asset_key: ARB_USDC,
        detected_atoms: '900',
        source_address: source,
        flag_reason,
        flagged_by: 'routes',
        tx_hash: d.tx_hash,
      });
      await sim.settle();
      expect(
        eventsOf(sim, account_id).filter((e) => e.type === 'deposit.verified' && e.data.deposit_address_id === da.deposit_address_id),
      ).toHaveLength(0);
      expect((await balancesOf(sim, account_id))[ARB_USDC]).toBeUndefined();
      await sim.control('DELETE', `/screening/addresses/${source}`);
    },
  );
});

describe('deposit faults', () => {
  it('{fail: deposit_insufficient_confirmations} drops the deposit one block short: no credit, no verified event', async () => {
    const account_id = await readyAccount(sim);
    const da = await newDepositAddress(sim, account_id, ARB_ETH);
    const f = await sim.control('POST', '/faults', {
      target: 'deposit',
      effect: { fail: 'deposit_insufficient_confirmations' },
      match: { ids: [da.deposit_address_id] },
    });
    expect(f.status).toBe(200);
    await land(sim, { deposit_address_id: da.deposit_address_id, atoms: '77' });
    expect((await balancesOf(sim, account_id))[ARB_ETH].pending_atoms).toBe('77');
    await sim.settle();
    expect((await deposit(sim, da.deposit_address_id))[0]).toMatchObject({ status: 'dropped', confirmations: 19, credit_id: null });
    expect(eventsOf(sim, account_id, 'deposit.').map((e) => e.type)).toEqual(['deposit.pending']);
    expect(eventsOf(sim, account_id, 'credit.')).toHaveLength(0);
    expect(await balancesOf(sim, account_id)).toEqual({});
    await sim.control('DELETE', `/faults/${f.body.fault.fault_id}`);
  });

  it('{flag: reason} flags a deposit whose source passes screening', async () => {
    const account_id = await readyAccount(sim);
    const da = await newDepositAddress(sim, account_id, ARB_ETH);
    await sim.control('POST', '/faults', { target: 'deposit', effect: { flag: 'mixer_association' }, match: { account_id }, times: 1 });
    await land(sim, { deposit_address_id: da.deposit_address_id, atoms: '5' });
    await land(sim, { deposit_address_id: da.deposit_address_id, atoms: '6' });
    await sim.settle();
    const ds = await deposit(sim, da.deposit_address_id);
    expect(ds.map((d: any) => [d.status, d.flag_reason, d.flagged_by])).toEqual([
      ['flagged', 'mixer_association', 'routes'],
      ['verified', null, null],
    ]);
  });

  it('{delay_ms} moves finality by that much', async () => {
    const account_id = await readyAccount(sim);
    const da = await newDepositAddress(sim, account_id, ARB_ETH);
    await sim.control('POST', '/faults', { target: 'deposit', effect: { delay_ms: 60_000 }, match: { ids: [da.deposit_address_id] } });
    await land(sim, { deposit_address_id: da.deposit_address_id, atoms: '5' });
    await sim.advance(ARB_FINALITY_MS + 60_000 - 1);
    expect((await deposit(sim, da.deposit_address_id))[0]).toMatchObject({ status: 'pending', confirmations: 19 });
    await sim.advance(1);
    expect((await deposit(sim, da.deposit_address_id))[0].status).toBe('verified');
  });

  it('lists deposits by account on the control plane', async () => {
    const account_id = await readyAccount(sim);
    const da = await newDepositAddress(sim, account_id, ARB_ETH);
    await land(sim, { deposit_address_id: da.deposit_address_id, atoms: '1' });
    const r = await sim.control('GET', `/deposits?account_id=${account_id}`);
    expect(r.status).toBe(200);
    expect(r.body.deposits.map((d: any) => d.account_id)).toEqual([account_id]);
    expect((await sim.control('GET', '/deposits?account_id=acct_none')).body.deposits).toEqual([]);
  });

  it('keeps every invariant', async () => {
    await sim.settle();
    expect(await sim.invariants()).toMatchObject({ ok: true, violations: [] });
  });
});
