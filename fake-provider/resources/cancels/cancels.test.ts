// Cancels over real HTTP, on credits made by the real deposit flow: the lifecycle with its events, timings
// and balances, the `cancel` fault rules (broadcast_failed, confirmation_timeout, delay_ms), and every
// error code POST /cancels and GET /cancels/{cancel_id} answer.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestSim } from '../../testing/harness.ts';
import { accountStore, sendAccount } from '../accounts/index.ts';
import { creditHolder, creditStore } from '../credits/index.ts';
import {
  ARB_ETH,
  ARB_FINALITY_MS,
  ARB_USDC,
  BROADCAST_MS,
  balancesOf,
  cancelEvents,
  fundedCredit,
  getCancel,
  newDestination,
  newOrgKey,
  postCancel,
  readyAccount,
  SOL_ADDRESS,
  startDepositSim,
} from '../../testing/fixtures/cancels.ts';

let sim: TestSim;
beforeAll(async () => {
  sim = await startDepositSim();
});
afterAll(() => sim.close());

async function expectInvariants(): Promise<void> {
  const inv = await sim.invariants();
  expect(inv.violations).toEqual([]);
  expect(inv.ok).toBe(true);
}

async function setup(asset_key = ARB_ETH, atoms = '1000'): Promise<{ account_id: string; credit_id: string; destination_id: string }> {
  const account_id = await readyAccount(sim);
  const credit_id = await fundedCredit(sim, account_id, asset_key, atoms);
  const destination_id = await newDestination(sim, account_id, asset_key);
  return { account_id, credit_id, destination_id };
}

const addFault = async (body: Record<string, unknown>): Promise<void> => {
  const r = await sim.control('POST', '/faults', body);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
};

describe('cancel lifecycle', () => {
  it('pending → sent → confirmed at the chain’s finality, with every event in order and the balance gone', async () => {
    const { account_id, credit_id, destination_id } = await setup();
    expect((await balancesOf(sim, account_id))[ARB_ETH]).toEqual({ available_atoms: '1000', pending_atoms: '0' });

    const r = await postCancel(sim, { account_id, credit_id, destination_id, client_cancel_id: 'my-1' });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const c = r.body.cancel;
    expect(c).toEqual({
      cancel_id: expect.stringMatching(/^can_/),
      status: 'pending',
      credit_id,
      client_cancel_id: 'my-1',
      poll_after_ms: BROADCAST_MS,
    });
    // In flight, the credit stays open (and locked): it still counts as available.
    expect((await balancesOf(sim, account_id))[ARB_ETH]).toEqual({ available_atoms: '1000', pending_atoms: '0' });
    expect((await sim.api('GET', `/accounts/${account_id}/credits`)).body.credits.map((x: any) => [x.credit_id, x.status])).toEqual([
      [credit_id, 'open'],
    ]);

    await sim.advance(BROADCAST_MS - 1);
    expect(await getCancel(sim, c.cancel_id)).toMatchObject({ status: 'pending', poll_after_ms: 500 });
    await sim.advance(1);
    const sent = await getCancel(sim, c.cancel_id);
    expect(sent).toEqual({
      cancel_id: c.cancel_id,
      status: 'sent',
      credit_id,
      client_cancel_id: 'my-1',
      tx_hash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      poll_after_ms: ARB_FINALITY_MS,
    });

    await sim.advance(ARB_FINALITY_MS - 1);
    expect((await getCancel(sim, c.cancel_id)).status).toBe('sent');
    await sim.advance(1);
    const done = await getCancel(sim, c.cancel_id);
    expect(done).toEqual({ cancel_id: c.cancel_id, status: 'confirmed', credit_id, client_cancel_id: 'my-1', tx_hash: sent.tx_hash });

    expect(cancelEvents(sim, c.cancel_id)).toEqual([
      ['cancel.created', { cancel_id: c.cancel_id, credit_id, client_cancel_id: 'my-1' }],
      ['cancel.sent', { cancel_id: c.cancel_id, credit_id, client_cancel_id: 'my-1', tx_hash: sent.tx_hash }],
      ['cancel.confirmed', { cancel_id: c.cancel_id, credit_id, client_cancel_id: 'my-1', tx_hash: sent.tx_hash }],
    ]);
    expect((await balancesOf(sim, account_id))[ARB_ETH]).toBeUndefined();
    const consumed = (await sim.api('GET', `/accounts/${account_id}/credits?status=consumed`)).body.credits;
    expect(consumed.map((x: any) => [x.credit_id, x.status])).toEqual([[credit_id, 'consumed']]);
    await expectInvariants();
  });

  it('answers client_cancel_id null when none was given, and leaves it out of event data', async () => {
    const { account_id, credit_id, destination_id } = await setup();
    const c = (await postCancel(sim, { account_id, credit_id, destination_id })).body.cancel;
    expect(c.client_cancel_id).toBeNull();
    expect(cancelEvents(sim, c.cancel_id)).toEqual([['cancel.created', { cancel_id: c.cancel_id, credit_id }]]);
    await sim.advance(BROADCAST_MS + ARB_FINALITY_MS);
    expect(cancelEvents(sim, c.cancel_id).map(([t]) => t)).toEqual(['cancel.created', 'cancel.sent', 'cancel.confirmed']);
  });

  it('waits for the credit’s own chain: Ethereum finality (12 × 12 s), poll_after_ms clamped to 60 s', async () => {
    const { account_id, credit_id, destination_id } = await setup('native.evm:1', '5000');
    const c = (await postCancel(sim, { account_id, credit_id, destination_id })).body.cancel;
    await sim.advance(BROADCAST_MS);
    expect(await getCancel(sim, c.cancel_id)).toMatchObject({ status: 'sent', poll_after_ms: 60_000 });
    await sim.advance(144_000 - 1);
    expect(await getCancel(sim, c.cancel_id)).toMatchObject({ status: 'sent', poll_after_ms: 500 });
    await sim.advance(1);
    expect((await getCancel(sim, c.cancel_id)).status).toBe('confirmed');
  });

  it('broadcasts a Solana cancel with a base58 signature and confirms after 32 × 400 ms', async () => {
    const account_id = await readyAccount(sim);
    const credit_id = await fundedCredit(sim, account_id, 'native.solana', '7000');
    const destination_id = await newDestination(sim, account_id, 'native.solana', SOL_ADDRESS);
    const c = (await postCancel(sim, { account_id, credit_id, destination_id })).body.cancel;
    await sim.advance(BROADCAST_MS);
    const sent = await getCancel(sim, c.cancel_id);
    expect(sent.tx_hash).toMatch(/^[1-9A-HJ-NP-Za-km-z]{80,90}$/);
    expect(sent.poll_after_ms).toBe(12_800);
    await sim.advance(12_800);
    expect((await getCancel(sim, c.cancel_id)).status).toBe('confirmed');
    await expectInvariants();
  });
});

describe('cancel faults', () => {
  it('broadcast_failed: pending → failed without a tx_hash; the credit stays open and a new cancel succeeds', async () => {
    const { account_id, credit_id, destination_id } = await setup();
    await addFault({ target: 'cancel', effect: { fail: 'broadcast_failed' }, match: { ids: [credit_id] }, times: 1 });
    const c = (await postCancel(sim, { account_id, credit_id, destination_id })).body.cancel;
    await sim.advance(BROADCAST_MS);
    expect(await getCancel(sim, c.cancel_id)).toEqual({
      cancel_id: c.cancel_id,
      status: 'failed',
      credit_id,
      client_cancel_id: null,
      failure_code: 'broadcast_failed',
    });
    expect(cancelEvents(sim, c.cancel_id)).toEqual([
      ['cancel.created', { cancel_id: c.cancel_id, credit_id }],
      ['cancel.failed', { cancel_id: c.cancel_id, credit_id, failure_code: 'broadcast_failed' }],
    ]);
    expect(creditHolder(creditStore(sim.running.runtime.world).byId.get(credit_id)!)).toBeNull();
    expect((await balancesOf(sim, account_id))[ARB_ETH]).toEqual({ available_atoms: '1000', pending_atoms: '0' });
    await expectInvariants();

    const again = (await postCancel(sim, { account_id, credit_id, destination_id })).body.cancel;
    expect(again.status).toBe('pending');
    await sim.advance(BROADCAST_MS + ARB_FINALITY_MS);
    expect((await getCancel(sim, again.cancel_id)).status).toBe('confirmed');
    await expectInvariants();
  });

  it('confirmation_timeout: sent, then failed when finality should have come; the credit stays open and usable', async () => {
    const { account_id, credit_id, destination_id } = await setup();
    await addFault({ target: 'cancel', effect: { fail: 'confirmation_timeout' }, match: { account_id }, times: 1 });
    const c = (await postCancel(sim, { account_id, credit_id, destination_id, client_cancel_id: 'to' })).body.cancel;
    await sim.advance(BROADCAST_MS);
    const sent = await getCancel(sim, c.cancel_id);
    expect(sent.status).toBe('sent');
    await sim.advance(ARB_FINALITY_MS - 1);
    expect((await getCancel(sim, c.cancel_id)).status).toBe('sent');
    await sim.advance(1);
    expect(await getCancel(sim, c.cancel_id)).toEqual({
      cancel_id: c.cancel_id,
      status: 'failed',
      credit_id,
      client_cancel_id: 'to',
      tx_hash: sent.tx_hash,
      failure_code: 'confirmation_timeout',
    });
    expect(cancelEvents(sim, c.cancel_id).map(([t, d]) => [t, d.failure_code ?? d.tx_hash ?? null])).toEqual([
      ['cancel.created', null],
      ['cancel.sent', sent.tx_hash],
      ['cancel.failed', 'confirmation_timeout'],
    ]);
    expect((await balancesOf(sim, account_id))[ARB_ETH]).toEqual({ available_atoms: '1000', pending_atoms: '0' });
    await expectInvariants();

    const again = (await postCancel(sim, { account_id, credit_id, destination_id })).body.cancel;
    await sim.advance(BROADCAST_MS + ARB_FINALITY_MS);
    expect((await getCancel(sim, again.cancel_id)).status).toBe('confirmed');
    expect((await balancesOf(sim, account_id))[ARB_ETH]).toBeUndefined();
    await expectInvariants();
  });

  it('delay_ms holds the broadcast back by that much, and finality follows the late broadcast', async () => {
    const { account_id, credit_id, destination_id } = await setup();
    await addFault({ target: 'cancel', effect: { delay_ms: 10_000 }, match: { ids: [credit_id] }, times: 1 });
    const c = (await postCancel(sim, { account_id, credit_id, destination_id })).body.cancel;
    await sim.advance(BROADCAST_MS);
    expect(await getCancel(sim, c.cancel_id)).toMatchObject({ status: 'pending', poll_after_ms: 10_000 });
    await sim.advance(10_000 - 1);
    expect((await getCancel(sim, c.cancel_id)).status).toBe('pending');
    await sim.advance(1);
    expect((await getCancel(sim, c.cancel_id)).status).toBe('sent');
    const sentAt = sim.running.runtime.world.events.all.find(
      (e) => e.envelope.type === 'cancel.sent' && e.envelope.data.cancel_id === c.cancel_id,
    )!.envelope.created_at_ms;
    await sim.advance(ARB_FINALITY_MS);
    const confirmedAt = sim.running.runtime.world.events.all.find(
      (e) => e.envelope.type === 'cancel.confirmed' && e.envelope.data.cancel_id === c.cancel_id,
    )!.envelope.created_at_ms;
    const createdAt = sim.running.runtime.world.events.all.find(
      (e) => e.envelope.type === 'cancel.created' && e.envelope.data.cancel_id === c.cancel_id,
    )!.envelope.created_at_ms;
    expect([sentAt - createdAt, confirmedAt - sentAt]).toEqual([BROADCAST_MS + 10_000, ARB_FINALITY_MS]);
    await expectInvariants();
  });

  it('refuses a cancel fail code the spec does not list', async () => {
    const r = await sim.control('POST', '/faults', { target: 'cancel', effect: { fail: 'settlement_failed' } });
    expect([r.status, r.body.error?.code]).toEqual([400, 'invalid_enum']);
  });
});

describe('POST /cancels errors', () => {
  let account_id: string;
  let credit_id: string;
  let destination_id: string;
  beforeAll(async () => {
    ({ account_id, credit_id, destination_id } = await setup());
  });

  const expectError = (r: { status: number; body: any }, status: number, code: string, param?: string): void => {
    expect([r.status, r.body.error?.code, r.body.error?.param], JSON.stringify(r.body)).toEqual([status, code, param]);
  };

  it('missing or malformed fields: parameter_missing / invalid_parameter, and nothing changes', async () => {
    const before = sim.running.runtime.world.events.all.length;
    expectError(await postCancel(sim, { credit_id, destination_id }), 400, 'parameter_missing', 'account_id');
    expectError(await postCancel(sim, { account_id, destination_id }), 400, 'parameter_missing', 'credit_id');
    expectError(await postCancel(sim, { account_id, credit_id }), 400, 'parameter_missing', 'destination_id');
    expectError(await postCancel(sim, { account_id, credit_id: 7, destination_id }), 400, 'invalid_parameter', 'credit_id');
    expectError(
      await postCancel(sim, { account_id, credit_id, destination_id, client_cancel_id: '' }),
      400,
      'invalid_parameter',
      'client_cancel_id',
    );
    expect(sim.running.runtime.world.events.all.length).toBe(before);
    expect(creditHolder(creditStore(sim.running.runtime.world).byId.get(credit_id)!)).toBeNull();
  });

  it('requires an Idempotency-Key', async () => {
    expectError(
      await postCancel(sim, { account_id, credit_id, destination_id }, { idem: '' }),
      400,
      'parameter_missing',
      'Idempotency-Key',
    );
  });

  it('unknown or foreign ids: account_not_found, not_found (credit), destination_not_found', async () => {
    expectError(await postCancel(sim, { account_id: 'acct_nope', credit_id, destination_id }), 404, 'account_not_found', 'account_id');
    expectError(await postCancel(sim, { account_id, credit_id: 'cred_nope', destination_id }), 404, 'not_found', 'credit_id');
    expectError(
      await postCancel(sim, { account_id, credit_id, destination_id: 'dest_nope' }),
      404,
      'destination_not_found',
      'destination_id',
    );
    // Another account of the same organization: its credit and destination are not this account's.
    const other = await setup();
    expectError(await postCancel(sim, { account_id, credit_id: other.credit_id, destination_id }), 404, 'not_found', 'credit_id');
    expectError(
      await postCancel(sim, { account_id, credit_id, destination_id: other.destination_id }),
      404,
      'destination_not_found',
      'destination_id',
    );
    // Another organization sees none of it.
    const key = await newOrgKey(sim);
    expectError(await postCancel(sim, { account_id, credit_id, destination_id }, { key }), 404, 'account_not_found', 'account_id');
    const foreign = await readyAccount(sim, key);
    expectError(await postCancel(sim, { account_id: foreign, credit_id, destination_id }, { key }), 404, 'not_found', 'credit_id');
  });

  it('destination for another asset: invalid_parameter; suspended destination: destination_suspended', async () => {
    const usdcDest = await newDestination(sim, account_id, ARB_USDC);
    expectError(await postCancel(sim, { account_id, credit_id, destination_id: usdcDest }), 400, 'invalid_parameter', 'destination_id');
    const suspended = await newDestination(sim, account_id, ARB_ETH, '0x2B5AD5c4795c026514f8317c7a215E218DcCD6cF');
    expect((await sim.control('POST', `/destinations/${suspended}/suspend`, { reason: 'delta screening' })).status).toBe(200);
    const r = await postCancel(sim, { account_id, credit_id, destination_id: suspended });
    expectError(r, 403, 'destination_suspended', 'destination_id');
    expect(creditHolder(creditStore(sim.running.runtime.world).byId.get(credit_id)!)).toBeNull();
  });

  it('replays the same key and body, refuses the key with another body (409), and credit_in_use while in flight', async () => {
    const body = { account_id, credit_id, destination_id, client_cancel_id: 'idem' };
    const first = await postCancel(sim, body, { idem: 'cancel-key-1' });
    expect(first.status).toBe(200);
    const replay = await postCancel(sim, body, { idem: 'cancel-key-1' });
    expect(replay.body).toEqual(first.body);
    expectError(
      await postCancel(sim, { ...body, client_cancel_id: 'other' }, { idem: 'cancel-key-1' }),
      409,
      'idempotency_key_reuse',
      'Idempotency-Key',
    );
    const busy = await postCancel(sim, body);
    expectError(busy, 409, 'credit_in_use', 'credit_id');
    expect(busy.body.error.details).toEqual({ credit_id });
    expect(cancelEvents(sim, first.body.cancel.cancel_id).map(([t]) => t)).toEqual(['cancel.created']);

    await sim.advance(BROADCAST_MS + ARB_FINALITY_MS);
    expect((await getCancel(sim, first.body.cancel.cancel_id)).status).toBe('confirmed');
    expectError(await postCancel(sim, body), 409, 'credit_already_consumed', 'credit_id');
    await expectInvariants();
  });

  it('allows cancels on a deactivated account, refuses them once an export has begun', async () => {
    const a = await setup();
    expect((await sim.api('POST', `/accounts/${a.account_id}/deactivate`)).status).toBe(200);
    const ok = await postCancel(sim, a);
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    await sim.advance(BROADCAST_MS + ARB_FINALITY_MS);
    expect((await getCancel(sim, ok.body.cancel.cancel_id)).status).toBe('confirmed');

    // No export endpoint exists yet in this version: start the export through the account's own operation.
    const b = await setup();
    const world = sim.running.runtime.world;
    expect(sendAccount(world, accountStore(world).byId.get(b.account_id)!, { type: 'EXPORT', export_source: 'integrator' })).toBe(true);
    const refused = await postCancel(sim, b);
    expectError(refused, 409, 'account_not_operable', 'account_id');
    expect(refused.body.error.details).toEqual({ account_id: b.account_id, status: 'export_initiated' });
  });
});

describe('GET /cancels/{cancel_id}', () => {
  it('404 cancel_not_found for an unknown id and for another organization’s cancel', async () => {
    const unknown = await sim.api('GET', '/cancels/can_nope');
    expect([unknown.status, unknown.body.error?.code, unknown.body.error?.param]).toEqual([404, 'cancel_not_found', 'cancel_id']);
    const { account_id, credit_id, destination_id } = await setup();
    const c = (await postCancel(sim, { account_id, credit_id, destination_id })).body.cancel;
    const key = await newOrgKey(sim);
    const foreign = await sim.api('GET', `/cancels/${c.cancel_id}`, { key });
    expect([foreign.status, foreign.body.error?.code]).toEqual([404, 'cancel_not_found']);
    expect((await sim.api('GET', `/cancels/${c.cancel_id}`)).status).toBe(200);
    const noAuth = await sim.api('GET', `/cancels/${c.cancel_id}`, { key: null });
    expect(noAuth.status).toBe(401);
  });
});
