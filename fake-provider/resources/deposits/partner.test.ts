// Partner screening over real HTTP: the deposit.partner_screening event and its window, verification
// waiting for the window, POST /deposits/{id}/flag inside and after it, its 404/409/422 answers, and the
// partner_flagged fault with and without partner screening.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestSim } from '../../testing/harness.ts';
import {
  ARB_ETH,
  ARB_FINALITY_MS,
  balancesOf,
  deposit,
  eventsOf,
  land,
  newDepositAddress,
  newOrgKey,
  readyAccount,
  startDepositSim,
} from '../../testing/fixtures/deposits.ts';

let sim: TestSim;
let partnerKey: string;
beforeAll(async () => {
  sim = await startDepositSim();
  partnerKey = await newOrgKey(sim, { partner_screening: true });
});
afterAll(() => sim.close());

const WINDOW_MS = 10_000;
const flag = (key: string, deposit_address_id: string, body: unknown) =>
  sim.api('POST', `/deposits/${deposit_address_id}/flag`, { body, key });

async function partnerDeposit(asset_key = ARB_ETH) {
  const account_id = await readyAccount(sim, partnerKey);
  const da = await newDepositAddress(sim, account_id, asset_key, partnerKey);
  const d = (await land(sim, { deposit_address_id: da.deposit_address_id, atoms: '1000' })).body.deposit;
  return { account_id, da, d };
}

describe('partner screening window', () => {
  it('publishes deposit.partner_screening after deposit.pending and verifies only once the window closes', async () => {
    const { account_id, da, d } = await partnerDeposit();
    const events = eventsOf(sim, account_id, 'deposit.');
    expect(events.map((e) => e.type)).toEqual(['deposit.pending', 'deposit.partner_screening']);
    expect(events[1].data).toEqual({
      deposit_address_id: da.deposit_address_id,
      tx_hash: d.tx_hash,
      source_address: d.source_address,
      asset_key: ARB_ETH,
      detected_atoms: '1000',
      screening_deadline_ms: events[1].created_at_ms + WINDOW_MS,
    });
    expect(d.screening_deadline_ms).toBe(events[1].created_at_ms + WINDOW_MS);
    await sim.advance(ARB_FINALITY_MS);
    expect((await deposit(sim, da.deposit_address_id))[0]).toMatchObject({ status: 'pending', confirmations: 20, screened: true });
    await sim.advance(WINDOW_MS - ARB_FINALITY_MS - 1);
    expect((await deposit(sim, da.deposit_address_id))[0].status).toBe('pending');
    expect((await balancesOf(sim, account_id, partnerKey))[ARB_ETH].pending_atoms).toBe('1000');
    await sim.advance(1);
    expect((await deposit(sim, da.deposit_address_id))[0].status).toBe('verified');
    expect((await balancesOf(sim, account_id, partnerKey))[ARB_ETH]).toEqual({ available_atoms: '1000', pending_atoms: '0' });
  });

  it('accepts a flag inside the window: deposit.flagged by partner, no credit, then 409 on a second flag', async () => {
    const { account_id, da, d } = await partnerDeposit();
    await sim.advance(WINDOW_MS - 1);
    const r = await flag(partnerKey, da.deposit_address_id, { tx_hash: d.tx_hash, flag_category: 'aml', flag_message: 'linked to a hack' });
    expect(r.status).toBe(200);
    expect(r.body.flag).toEqual({
      deposit_address_id: da.deposit_address_id,
      tx_hash: d.tx_hash,
      flag_reason: 'partner_flagged',
      accepted: true,
    });
    const flagged = eventsOf(sim, account_id, 'deposit.flagged');
    expect(flagged.map((e) => e.data)).toEqual([
      {
        deposit_address_id: da.deposit_address_id,
        asset_key: ARB_ETH,
        detected_atoms: '1000',
        source_address: d.source_address,
        flag_reason: 'partner_flagged',
        flagged_by: 'partner',
        tx_hash: d.tx_hash,
        partner_flag_category: 'aml',
        partner_flag_message: 'linked to a hack',
      },
    ]);
    await sim.settle();
    expect(eventsOf(sim, account_id, 'deposit.verified')).toHaveLength(0);
    expect(eventsOf(sim, account_id, 'credit.')).toHaveLength(0);
    expect(await balancesOf(sim, account_id, partnerKey)).toEqual({});
    const again = await flag(partnerKey, da.deposit_address_id, { tx_hash: d.tx_hash, flag_category: 'aml', flag_message: 'again' });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ code: 'deposit_window_closed', details: { status: 'flagged' } });
  });

  it('answers 409 deposit_window_closed once the window has closed, verified or not', async () => {
    const verified = await partnerDeposit();
    await sim.advance(WINDOW_MS);
    const late = await flag(partnerKey, verified.da.deposit_address_id, {
      tx_hash: verified.d.tx_hash,
      flag_category: 'aml',
      flag_message: 'late',
    });
    expect(late.status).toBe(409);
    expect(late.body.error).toMatchObject({ code: 'deposit_window_closed', details: { status: 'verified' } });

    // Bitcoin finality takes half an hour: the window closes long before, with the deposit still pending.
    const slow = await partnerDeposit('native.btc');
    await sim.advance(WINDOW_MS + 1);
    const r = await flag(partnerKey, slow.da.deposit_address_id, { tx_hash: slow.d.tx_hash, flag_category: 'aml', flag_message: 'late' });
    expect(r.status).toBe(409);
    expect(r.body.error).toMatchObject({ code: 'deposit_window_closed', details: { status: 'pending' } });
    await sim.settle();
    expect((await deposit(sim, slow.da.deposit_address_id))[0].status).toBe('verified');
  });

  it('answers 404 for an unknown address, another tx_hash, another organization, or an org without partner screening', async () => {
    const plain = await readyAccount(sim);
    const { da, d } = await partnerDeposit();
    const body = { tx_hash: d.tx_hash, flag_category: 'c', flag_message: 'm' };
    const cases: Array<[string, string, unknown, string]> = [
      [partnerKey, 'dpa_nope', body, 'deposit_address_id'],
      [partnerKey, da.deposit_address_id, { ...body, tx_hash: `0x${'00'.repeat(32)}` }, 'tx_hash'],
      [sim.api_key, da.deposit_address_id, body, 'deposit_address_id'],
    ];
    for (const [key, id, b, param] of cases) {
      const r = await flag(key, id, b);
      expect([r.status, r.body.error.code, r.body.error.param]).toEqual([404, 'not_found', param]);
    }
    const pda = await newDepositAddress(sim, plain, ARB_ETH);
    const pd = (await land(sim, { deposit_address_id: pda.deposit_address_id, atoms: '1' })).body.deposit;
    expect(eventsOf(sim, plain, 'deposit.partner_screening')).toHaveLength(0);
    const r = await flag(sim.api_key, pda.deposit_address_id, { tx_hash: pd.tx_hash, flag_category: 'c', flag_message: 'm' });
    expect([r.status, r.body.error.code]).toEqual([404, 'not_found']);
    expect((await deposit(sim, da.deposit_address_id))[0].status).toBe('pending');
    expect((await flag(partnerKey, da.deposit_address_id, { ...body, tx_hash: d.tx_hash.toUpperCase().replace('0X', '0x') })).status).toBe(
      200,
    );
  });

  it('answers 422 invalid_flag_request for missing or invalid body fields and changes nothing', async () => {
    const { da, d } = await partnerDeposit();
    const cases: Array<[unknown, string]> = [
      [{ flag_category: 'c', flag_message: 'm' }, 'tx_hash'],
      [{ tx_hash: d.tx_hash, flag_message: 'm' }, 'flag_category'],
      [{ tx_hash: d.tx_hash, flag_category: 'c' }, 'flag_message'],
      [{ tx_hash: d.tx_hash, flag_category: 7, flag_message: 'm' }, 'flag_category'],
      [{ tx_hash: d.tx_hash, flag_category: 'c', flag_message: '' }, 'flag_message'],
      [{ tx_hash: ['x'], flag_category: 'c', flag_message: 'm' }, 'tx_hash'],
    ];
    for (const [body, param] of cases) {
      const r = await flag(partnerKey, da.deposit_address_id, body);
      expect([r.status, r.body.error.code, r.body.error.param, r.body.error.type], JSON.stringify(body)).toEqual([
        422,
        'invalid_flag_request',
        param,
        'invalid_request',
      ]);
    }
    expect((await deposit(sim, da.deposit_address_id))[0].status).toBe('pending');
    expect((await flag(null as unknown as string, da.deposit_address_id, {})).status).toBe(401);
  });
});

describe('the partner_flagged fault', () => {
  it('flags halfway through the window for an organization with partner screening', async () => {
    const account_id = await readyAccount(sim, partnerKey);
    const da = await newDepositAddress(sim, account_id, ARB_ETH, partnerKey);
    await sim.control('POST', '/faults', {
      target: 'deposit',
      effect: { flag: 'partner_flagged' },
      match: { ids: [da.deposit_address_id] },
    });
    await land(sim, { deposit_address_id: da.deposit_address_id, atoms: '3' });
    await sim.advance(WINDOW_MS / 2 - 1);
    expect((await deposit(sim, da.deposit_address_id))[0].status).toBe('pending');
    await sim.advance(1);
    expect((await deposit(sim, da.deposit_address_id))[0]).toMatchObject({
      status: 'flagged',
      flag_reason: 'partner_flagged',
      flagged_by: 'partner',
    });
    expect(eventsOf(sim, account_id, 'deposit.flagged')[0].data).toMatchObject({
      flagged_by: 'partner',
      partner_flag_category: 'swapsim_fault',
    });
  });

  it('does not fire for an organization without partner screening (the rule stays unused)', async () => {
    const account_id = await readyAccount(sim);
    const da = await newDepositAddress(sim, account_id, ARB_ETH);
    const f = (
      await sim.control('POST', '/faults', { target: 'deposit', effect: { flag: 'partner_flagged' }, match: { account_id }, times: 1 })
    ).body.fault;
    await land(sim, { deposit_address_id: da.deposit_address_id, atoms: '3' });
    await sim.settle();
    expect((await deposit(sim, da.deposit_address_id))[0].status).toBe('verified');
    const faults = (await sim.control('GET', '/faults')).body;
    expect(faults.faults.find((x: any) => x.fault_id === f.fault_id).times).toBe(1);
    expect(faults.fired.filter((x: any) => x.fault_id === f.fault_id)).toEqual([]);
  });

  it('keeps every invariant', async () => {
    await sim.settle();
    expect(await sim.invariants()).toMatchObject({ ok: true, violations: [] });
  });
});
