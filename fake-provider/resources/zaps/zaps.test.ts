// Zap lifecycles over real HTTP on the virtual clock: credit-funded and deposit-funded runs with their
// events, balances and credits, the deposit-stage failures through real flows, expiry, and the invariants.
// Failures at execution and settlement, zap-only fault stages and reorgs are failures.test.ts; every edge
// of the zap machine is taken in transition-coverage.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestSim } from '../../testing/harness.ts';
import {
  ARB_ETH,
  ARB_FINALITY_MS,
  ARB_USDC,
  FLOOR_ATOMS,
  IN_ATOMS,
  addFault,
  balancesOf,
  credit,
  creditZap,
  eventsOf,
  funded,
  getZap,
  holderOf,
  land,
  nowMs,
  pinPrices,
  postZap,
  startZapSim,
  zapEvents,
  TO_PENDING_MS,
  awaitingZap,
  depositCredit,
} from '../../testing/fixtures/zaps.ts';

let sim: TestSim;
beforeAll(async () => {
  sim = await startZapSim();
});
afterAll(() => sim.close());

describe('a credit-funded zap', () => {
  it('runs executing → filled → pending_settle → settled with its events, balances and credits', async () => {
    const f = await funded(sim);
    const r = await postZap(sim, creditZap(f, { client_zap_id: 'cz-1', min_amount_out_atoms: FLOOR_ATOMS }));
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const zap_id = r.body.zap.zap_id;
    expect(r.body.zap).toEqual({
      zap_id: expect.stringMatching(/^zap_/),
      status: 'executing',
      client_zap_id: 'cz-1',
      requested_amount_in_atoms: IN_ATOMS,
      poll_after_ms: expect.any(Number),
    });
    expect(r.body.zap.poll_after_ms).toBeGreaterThanOrEqual(200);
    expect(await holderOf(sim, f.credit_id)).toBe(zap_id);
    expect(zapEvents(sim, zap_id)).toEqual([['zap.executing', { zap_id, client_zap_id: 'cz-1' }]]);

    const executing = await getZap(sim, zap_id);
    expect(executing).toMatchObject({
      zap_id,
      account_id: f.account_id,
      status: 'executing',
      client_zap_id: 'cz-1',
      requested_amount_in_atoms: IN_ATOMS,
      from_asset_key: ARB_USDC,
      to_asset_key: ARB_ETH,
      created_at_ms: await nowMs(sim),
    });
    expect(executing.fees).toMatchObject({ platform_bps: '10', integrator_bps: '0', total_bps: '10' });
    for (const absent of ['observed_amount_in_atoms', 'deposit_address', 'settlement', 'failure_code', 'expires_at_ms'])
      expect(executing).not.toHaveProperty(absent);

    await sim.advance(TO_PENDING_MS);
    const pending = await getZap(sim, zap_id);
    expect(pending.status).toBe('pending_settle');
    expect(pending.settlement).toMatchObject({ out_finalized: false, in_finalized: false });
    expect(pending.settlement.out_tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
    const mid = await balancesOf(sim, f.account_id);
    // The output counts as pending from the fill; the source credit stays available (locked) until settlement.
    expect(mid[ARB_USDC]).toEqual({ available_atoms: '100000000', pending_atoms: '0' });
    const pendingOut = BigInt(mid[ARB_ETH].pending_atoms);
    expect(pendingOut).toBeGreaterThanOrEqual(BigInt(FLOOR_ATOMS));
    expect(mid[ARB_ETH].available_atoms).toBe('0');

    await sim.advance(ARB_FINALITY_MS + 1_000);
    const settled = await getZap(sim, zap_id);
    expect(settled.status).toBe('settled');
    expect(settled).not.toHaveProperty('poll_after_ms');
    expect(settled.settlement).toMatchObject({ out_finalized: true, in_finalized: true, out_confirmations: 20, in_confirmations: 20 });
    const fees = settled.fees;
    expect(BigInt(fees.total_atoms)).toBe(BigInt(fees.platform_atoms) + BigInt(fees.integrator_atoms));

    const all = eventsOf(sim, f.account_id);
    const tail = all
      .slice(all.findIndex((e) => e.type === 'zap.executing'))
      .filter((e) => e.type.startsWith('zap.') || e.type === 'credit.created');
    expect(tail.map((e) => e.type)).toEqual([
      'zap.executing',
      'zap.filled',
      'zap.pending_settle',
      'zap.settled',
      'credit.created',
      'credit.created',
    ]);
    const settlement_credit_id = tail[3].data.credit_id;
    expect(tail[3].data).toEqual({ zap_id, client_zap_id: 'cz-1', credit_id: settlement_credit_id });
    expect(tail[4].data).toEqual({
      credit_id: settlement_credit_id,
      asset_key: ARB_ETH,
      atoms: pendingOut.toString(),
      source_type: 'trade_settlement',
    });
    expect(tail[5].data).toMatchObject({ asset_key: ARB_USDC, atoms: '40000000', source_type: 'change' });

    expect(await balancesOf(sim, f.account_id)).toEqual({
      [ARB_USDC]: { available_atoms: '40000000', pending_atoms: '0' },
      [ARB_ETH]: { available_atoms: pendingOut.toString(), pending_atoms: '0' },
    });
    expect(await credit(sim, f.account_id, f.credit_id)).toMatchObject({ status: 'consumed' });
    expect(await credit(sim, f.account_id, settlement_credit_id as string)).toMatchObject({
      status: 'open',
      source_type: 'trade_settlement',
      source_id: zap_id,
    });

    const history = (await sim.api('GET', `/accounts/${f.account_id}/history?types=zap`)).body.records;
    expect(history).toEqual([
      {
        type: 'zap',
        status: 'settled',
        created_at_ms: executing.created_at_ms,
        zap_id,
        client_zap_id: 'cz-1',
        from_asset_key: ARB_USDC,
        to_asset_key: ARB_ETH,
        amount_in_atoms: IN_ATOMS,
        amount_out_atoms: pendingOut.toString(),
        requested_amount_in_atoms: IN_ATOMS,
        fees,
        settlement: {
          out_tx_hash: settled.settlement.out_tx_hash,
          out_finalized: true,
          in_tx_hash: settled.settlement.in_tx_hash,
          in_finalized: true,
        },
        settled_at_ms: expect.any(Number),
      },
    ]);
  });

  it('omits client_zap_id from event data when none was given, and shows it as null on the zap', async () => {
    const f = await funded(sim);
    const r = await postZap(sim, creditZap(f));
    expect(r.body.zap.client_zap_id).toBeNull();
    expect(zapEvents(sim, r.body.zap.zap_id)).toEqual([['zap.executing', { zap_id: r.body.zap.zap_id }]]);
    await sim.settle();
    expect((await getZap(sim, r.body.zap.zap_id)).status).toBe('settled');
  });

  it('replays the same Idempotency-Key with the same zap, and answers 409 to another body', async () => {
    const f = await funded(sim);
    const first = await postZap(sim, creditZap(f), { idem: 'zap-idem-1' });
    const again = await postZap(sim, creditZap(f), { idem: 'zap-idem-1' });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    const other = await postZap(sim, creditZap(f, { amount_in_atoms: '1000000' }), { idem: 'zap-idem-1' });
    expect(other.status).toBe(409);
    expect(other.body.error.code).toBe('idempotency_key_reuse');
    await sim.settle();
  });
});

describe('a deposit-funded zap', () => {
  it('awaits a deposit on a single-use address, then executes on the observed amount and settles', async () => {
    const { account_id, zap_id, deposit_address_id, created } = await awaitingZap(sim, { client_zap_id: 'dz-1' });
    expect(created).toEqual({
      zap_id,
      status: 'awaiting_deposit',
      client_zap_id: 'dz-1',
      requested_amount_in_atoms: '50000000',
      deposit_address: {
        deposit_address_id,
        asset_key: ARB_USDC,
        address: expect.stringMatching(/^0x[0-9a-fA-F]{40}$/),
        memo: null,
        tag: null,
      },
      // Arbitrum finality (20 × 250 ms): when a deposit could first be credited.
      poll_after_ms: 5_000,
    });
    expect(zapEvents(sim, zap_id)).toEqual([['zap.awaiting_deposit', { zap_id, client_zap_id: 'dz-1' }]]);
    const waiting = await getZap(sim, zap_id);
    expect(waiting).toMatchObject({ status: 'awaiting_deposit', deposit_address: created.deposit_address, poll_after_ms: 5_000 });
    for (const absent of ['observed_amount_in_atoms', 'fees', 'settlement']) expect(waiting).not.toHaveProperty(absent);
    // Single use: a fresh on-chain address, not the account's shared USDC deposit address.
    const shared = (await sim.api('POST', `/accounts/${account_id}/deposit-addresses`, { body: { asset_key: ARB_USDC } })).body
      .deposit_address;
    expect(shared.address).not.toBe(created.deposit_address.address);

    expect((await land(sim, { deposit_address_id, atoms: '55000000' })).status).toBe(200);
    await sim.advance(ARB_FINALITY_MS);
    const executing = await getZap(sim, zap_id);
    expect(executing).toMatchObject({ status: 'executing', requested_amount_in_atoms: '50000000', observed_amount_in_atoms: '55000000' });
    expect(executing).not.toHaveProperty('deposit_address');
    expect(executing.fees.platform_bps).toBe('10');
    const credit_id = await depositCredit(sim, deposit_address_id);
    expect(await holderOf(sim, credit_id)).toBe(zap_id);

    await sim.settle();
    const settled = await getZap(sim, zap_id);
    expect(settled.status).toBe('settled');
    const types = eventsOf(sim, account_id)
      .filter((e) => e.type.startsWith('zap.') || e.type.startsWith('credit.') || e.type.startsWith('deposit.'))
      .map((e) => e.type);
    expect(types).toEqual([
      'zap.awaiting_deposit',
      'deposit.pending',
      'deposit.verified',
      'credit.created',
      'zap.executing',
      'zap.filled',
      'zap.pending_settle',
      'zap.settled',
      'credit.created',
    ]);
    // The whole deposit is executed: the credit is consumed and no change credit follows.
    expect(await credit(sim, account_id, credit_id)).toMatchObject({ status: 'consumed', atoms: '55000000' });
    const balances = await balancesOf(sim, account_id);
    expect(balances[ARB_USDC]).toBeUndefined();
    expect(BigInt(balances[ARB_ETH].available_atoms)).toBeGreaterThan(0n);
    const [record] = (await sim.api('GET', `/accounts/${account_id}/history?types=zap`)).body.records;
    expect(record).toMatchObject({
      status: 'settled',
      amount_in_atoms: '55000000',
      requested_amount_in_atoms: '50000000',
      observed_amount_in_atoms: '55000000',
      amount_out_atoms: balances[ARB_ETH].available_atoms,
    });
  });

  it('prices the observed amount: more in, proportionally more out than the requested amount would give', async () => {
    await pinPrices(sim);
    const small = await awaitingZap(sim);
    const large = await awaitingZap(sim);
    await land(sim, { deposit_address_id: small.deposit_address_id, atoms: '50000000' });
    await land(sim, { deposit_address_id: large.deposit_address_id, atoms: '100000000' });
    await sim.settle();
    const outOf = async (a: string) => BigInt((await balancesOf(sim, a))[ARB_ETH].available_atoms);
    const [s, l] = [await outOf(small.account_id), await outOf(large.account_id)];
    // Same prices, two spreads drawn in 5..30 bps: the doubled deposit gets about twice the output.
    expect((l * 1000n) / s).toBeGreaterThan(1990n);
    expect((l * 1000n) / s).toBeLessThan(2010n);
  });

  it('credits a second deposit to a used zap address as an ordinary credit and leaves the zap alone', async () => {
    const z = await awaitingZap(sim);
    await land(sim, { deposit_address_id: z.deposit_address_id, atoms: '55000000' });
    await sim.settle();
    const before = zapEvents(sim, z.zap_id);
    const extra = await land(sim, { deposit_address_id: z.deposit_address_id, atoms: '7000000' });
    expect(extra.body.deposit.repeat_on_single_use).toBe(true);
    await sim.settle();
    expect(zapEvents(sim, z.zap_id)).toEqual(before);
    const credits = (await sim.api('GET', `/accounts/${z.account_id}/credits?asset_key=${ARB_USDC}`)).body.credits;
    expect(credits).toEqual([
      expect.objectContaining({ atoms: '7000000', status: 'open', source_type: 'deposit', source_id: extra.body.deposit.tx_hash }),
    ]);
    expect(await holderOf(sim, credits[0].credit_id)).toBeNull();
  });

  it('fails with from_asset_mismatch when another asset of the chain lands; that deposit keeps its own open credit', async () => {
    const z = await awaitingZap(sim);
    await land(sim, { deposit_address_id: z.deposit_address_id, atoms: '10000000000000000', asset_key: ARB_ETH });
    await sim.advance(ARB_FINALITY_MS);
    const failed = await getZap(sim, z.zap_id);
    expect(failed).toMatchObject({ status: 'failed', failure_code: 'from_asset_mismatch' });
    for (const absent of ['poll_after_ms', 'deposit_address', 'observed_amount_in_atoms', 'fees'])
      expect(failed).not.toHaveProperty(absent);
    const credit_id = await depositCredit(sim, z.deposit_address_id);
    // The deposit's open credit gets a recovery (resources/recoveries), named by zap.failed and GET zap.
    expect(failed.recovery).toEqual({ recovery_id: expect.stringMatching(/^rec_/), credit_id });
    expect(zapEvents(sim, z.zap_id)).toEqual([
      ['zap.awaiting_deposit', { zap_id: z.zap_id }],
      ['zap.failed', { zap_id: z.zap_id, failure_code: 'from_asset_mismatch', ...failed.recovery }],
    ]);
    expect(await credit(sim, z.account_id, credit_id)).toMatchObject({ status: 'open', asset_key: ARB_ETH, atoms: '10000000000000000' });
    expect(await holderOf(sim, credit_id)).toBeNull();
    const [record] = (await sim.api('GET', `/accounts/${z.account_id}/history?types=zap`)).body.records;
    expect(record).toMatchObject({
      status: 'failed',
      failure_code: 'from_asset_mismatch',
      amount_in_atoms: '50000000',
      amount_out_atoms: '0',
      fees: { platform_bps: '10', integrator_bps: '0', total_bps: '10', platform_atoms: '0', integrator_atoms: '0', total_atoms: '0' },
    });
    expect(record).not.toHaveProperty('observed_amount_in_atoms');
    expect(record).not.toHaveProperty('settled_at_ms');
  });

  it('fails with deposit_flagged when the deposit’s source fails screening (no credit is created)', async () => {
    const z = await awaitingZap(sim);
    const src = '0x2B5AD5c4795c026514f8317c7a215E218DcCD6cF';
    expect((await sim.control('POST', '/screening/addresses', { address: src, flag_reason: 'sanctions_match' })).status).toBe(200);
    await land(sim, { deposit_address_id: z.deposit_address_id, atoms: '55000000', source_address: src });
    await sim.advance(ARB_FINALITY_MS);
    expect(await getZap(sim, z.zap_id)).toMatchObject({ status: 'failed', failure_code: 'deposit_flagged' });
    expect(zapEvents(sim, z.zap_id).map(([t]) => t)).toEqual(['zap.awaiting_deposit', 'zap.failed']);
    expect((await sim.api('GET', `/accounts/${z.account_id}/credits`)).body.credits).toEqual([]);
  });

  it('fails with deposit_insufficient_confirmations when the deposit is dropped before finality', async () => {
    const z = await awaitingZap(sim);
    await addFault(sim, {
      target: 'deposit',
      effect: { fail: 'deposit_insufficient_confirmations' },
      match: { ids: [z.deposit_address_id] },
      times: 1,
    });
    await land(sim, { deposit_address_id: z.deposit_address_id, atoms: '55000000' });
    await sim.advance(ARB_FINALITY_MS);
    expect(await getZap(sim, z.zap_id)).toMatchObject({ status: 'failed', failure_code: 'deposit_insufficient_confirmations' });
    expect(await balancesOf(sim, z.account_id)).toEqual({});
  });

  it('fails with zap_expired at expires_at_ms while awaiting; a late deposit is an ordinary credit', async () => {
    const expires_at_ms = (await nowMs(sim)) + 60_000 + 10_000;
    const z = await awaitingZap(sim, { expires_at_ms });
    expect((await getZap(sim, z.zap_id)).expires_at_ms).toBe(expires_at_ms);
    await sim.advance(expires_at_ms - (await nowMs(sim)) - 1);
    expect((await getZap(sim, z.zap_id)).status).toBe('awaiting_deposit');
    await sim.advance(1);
    expect(await getZap(sim, z.zap_id)).toMatchObject({ status: 'failed', failure_code: 'zap_expired', expires_at_ms });
    await land(sim, { deposit_address_id: z.deposit_address_id, atoms: '55000000' });
    await sim.settle();
    expect((await getZap(sim, z.zap_id)).status).toBe('failed');
    expect((await balancesOf(sim, z.account_id))[ARB_USDC]).toEqual({ available_atoms: '55000000', pending_atoms: '0' });
  });

  it('fails with execution_failed when the observed amount is below the size bounds, leaving the credit open', async () => {
    const z = await awaitingZap(sim);
    await land(sim, { deposit_address_id: z.deposit_address_id, atoms: '500000' });
    await sim.advance(ARB_FINALITY_MS);
    const failed = await getZap(sim, z.zap_id);
    expect(failed).toMatchObject({ status: 'failed', failure_code: 'execution_failed', observed_amount_in_atoms: '500000' });
    expect(zapEvents(sim, z.zap_id).map(([t]) => t)).toEqual(['zap.awaiting_deposit', 'zap.failed']);
    const credit_id = await depositCredit(sim, z.deposit_address_id);
    expect(await credit(sim, z.account_id, credit_id)).toMatchObject({ status: 'open' });
    expect(await holderOf(sim, credit_id)).toBeNull();
  });
});

describe('invariants', () => {
  it('holds every invariant over everything above', async () => {
    await sim.settle();
    const inv = await sim.invariants();
    expect(inv.violations).toEqual([]);
    expect(inv.ok).toBe(true);
  });
});
