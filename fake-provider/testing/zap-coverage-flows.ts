// Test support only: one compact run over real HTTP that takes the zap machine's edges (filled --FAIL--> failed,
// the settlement_failed fault, is taken by fake-provider/transition-coverage.test.ts).
import type { TestSim } from './harness.ts';
import {
  ARB_ETH,
  ARB_USDC,
  addFault,
  creditZap,
  depositZap,
  fundedCredit,
  land,
  newDestination,
  nowMs,
  postZap,
  readyAccount,
} from './fixtures/zaps.ts';

/** The zap edges a flow reaches without a settlement_failed fault, on one account of the default organization. */
export async function driveZapEdges(sim: TestSim): Promise<void> {
  const account_id = await readyAccount(sim);
  const destination_id = await newDestination(sim, account_id, ARB_ETH);
  const f = { account_id, destination_id, credit_id: await fundedCredit(sim, account_id, ARB_USDC, '100000000') };
  const fault = (effect: Record<string, unknown>, match: Record<string, unknown> = { account_id }) =>
    addFault(sim, { target: 'zap', effect, match, times: 1 });
  const run = async (body: Record<string, unknown>) => {
    const r = await postZap(sim, body);
    if (r.status !== 200) throw new Error(JSON.stringify(r.body));
    return r.body.zap;
  };

  // Credit-funded. A failed zap frees its credit, so one credit serves every path.
  await fault({ fail: 'execution_failed' }); // executing --FAIL
  await run(creditZap(f));
  await sim.settle();
  await run(creditZap(f, { expires_at_ms: (await nowMs(sim)) + 100 })); // executing --EXPIRE
  await sim.settle();
  await fault({ fail: 'settlement_orphaned' }); // pending_settle --ORPHAN, --FAIL
  await run(creditZap(f));
  await sim.settle();
  await fault({ reorg: 'out' }); // BEGIN … SETTLED, then settled ⇄ settled_orphaned
  await run(creditZap(f));
  await sim.settle();

  // Deposit-funded.
  const waiting = async (extra: Record<string, unknown> = {}) =>
    (await run(depositZap(account_id, destination_id, extra))).deposit_address.deposit_address_id as string;
  await land(sim, { deposit_address_id: await waiting(), atoms: '55000000' }); // DEPOSIT_VERIFIED
  await land(sim, { deposit_address_id: await waiting(), atoms: '1000000000000000', asset_key: ARB_ETH }); // MISMATCH
  const flaggedSource = '0x6813Eb9362372EEF6200f3b1dbC3f819671cBA69';
  await sim.control('POST', '/screening/addresses', { address: flaggedSource, flag_reason: 'mixer_association' });
  await land(sim, { deposit_address_id: await waiting(), atoms: '55000000', source_address: flaggedSource }); // FLAGGED
  const dropped = await waiting();
  await addFault(sim, { target: 'deposit', effect: { fail: 'deposit_insufficient_confirmations' }, match: { ids: [dropped] }, times: 1 });
  await land(sim, { deposit_address_id: dropped, atoms: '55000000' }); // DROPPED
  await waiting({ expires_at_ms: (await nowMs(sim)) + 1_000 }); // awaiting_deposit --EXPIRE
  await land(sim, { deposit_address_id: await waiting(), atoms: '500000' }); // FAIL: observed amount under 1 USD
  await sim.settle();
}
