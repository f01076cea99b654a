// Compact lifecycles as the resources declare them (engine/index.ts `compactLifecycle`): a settled trade holds its settlement credit's id,
// a consumed quote its trade's, an expired RFQ its best quote's; the snapshots made on read must be the
// machine's own, byte for byte, and any other snapshot (an orphaned leg, another context) is held whole.
import { describe, expect, it } from 'vitest';
import type { EventObject } from 'xstate';
import { newWorld } from '../../app.ts';
import { createOrganization } from '../../organizations.ts';
import { lifecycle, type MachineSnapshot } from '../../engine/index.ts';
import { requireAsset } from '../assets/index.ts';
import { createAccount } from '../accounts/model.ts';
import { createDepositAddress, landDeposit, depositStore } from '../deposits/index.ts';
import { registerDestination } from '../destinations/model.ts';
import { createRfq, quoteSnapshot, rfqSnapshot, rfqStore } from '../rfqs/model.ts';
import { acceptQuote } from '../rfqs/accept.ts';
import { quoteMachine, rfqMachine } from '../rfqs/machine.ts';
import { tradeMachine } from './machine.ts';
import { tradeLifecycle, tradeSnapshot, tradeStore } from './model.ts';

const ARB_ETH = 'native.evm:42161';
const ARB_USDC = 'erc20.evm:42161_0xaf88d065e77c8cc2239327c5edb3a432268e5831';
const ETH = 10n ** 18n;

/** The engine's own snapshot after these steps from the machine's start. */
function walk<M extends typeof tradeMachine | typeof quoteMachine | typeof rfqMachine>(
  machine: M,
  input: unknown,
  events: EventObject[],
): MachineSnapshot<M> {
  const world = newWorld({ seed: 'packed-walk', clock: 'virtual' });
  const steps = lifecycle<M>(machine);
  let snapshot = steps.start(world, 'e1', input).snapshot;
  for (const e of events) snapshot = steps.send(world, 'e1', snapshot, e)!.snapshot;
  return snapshot;
}

async function settledTrade() {
  const world = newWorld({ seed: 'packed', clock: 'virtual' });
  const org = createOrganization(world, { api_keys: ['sk_packed'] });
  const account = createAccount(world, org, {});
  await world.sim.scheduler.settle(60_000);
  const da = createDepositAddress(world, account, requireAsset(ARB_ETH));
  const destination_id = registerDestination(world, org.organization_id, account.account_id, {
    asset_key: ARB_USDC,
    address: '0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf',
  }).destination_id;
  landDeposit(world, { deposit_address_id: da.deposit_address_id, atoms: 2n * ETH });
  await world.sim.scheduler.settle(60_000);
  const credit_id = depositStore(world).list[0].credit_id!;
  const rfq = createRfq(world, org, {
    mode: 'firm',
    side: 'exact_in',
    from_asset_key: ARB_ETH,
    to_asset_key: ARB_USDC,
    amount_in_atoms: ETH.toString(),
    account_id: account.account_id,
    credit_id,
    destination_id,
    ttl_ms: 1_000,
    wait_ms: 1_000,
  });
  const quote_id = rfqSnapshot(rfq).context.best_quote_id!;
  const trade_id = acceptQuote(world, org, quote_id, { slippage_bps: '500' });
  await world.sim.scheduler.settle(60_000);
  return { trade: tradeStore(world).byId.get(trade_id)!, quote: rfqStore(world).quotes.get(quote_id)!, rfq };
}

describe('packed final snapshots', () => {
  it('a settled trade and its consumed quote read back exactly the snapshots their machines made', async () => {
    const { trade, quote } = await settledTrade();
    const credit_id = tradeSnapshot(trade).context.settlement_credit_id!;
    expect(credit_id).toMatch(/^cred_/);
    // Held packed: the kept id alone, not a snapshot.
    expect(trade.state).toBe(credit_id);
    const tradeOwn = walk(tradeMachine, undefined, [
      { type: 'FILL' },
      { type: 'SETTLE_INITIATED' },
      { type: 'SETTLED', credit_id } as EventObject,
    ]);
    expect(JSON.stringify(tradeSnapshot(trade))).toBe(JSON.stringify(tradeOwn));
    const quoteOwn = walk(quoteMachine, { expires_at_ms: quote.expires_at_ms }, [
      { type: 'ACCEPT', trade_id: trade.trade_id, at_ms: quote.expires_at_ms - 1 } as EventObject,
    ]);
    expect(JSON.stringify(quoteSnapshot(quote))).toBe(JSON.stringify(quoteOwn));
    expect(quote.state).toBe(trade.trade_id);
    expect(quoteSnapshot(quote)).not.toBe(quoteSnapshot(quote)); // made on read
  });

  it('an expired RFQ reads back exactly the snapshot its machine made', async () => {
    const { rfq, quote } = await settledTrade();
    expect(rfqSnapshot(rfq).value).toBe('expired');
    expect(rfq.state).toBe(quote.quote_id);
    const own = walk(rfqMachine, { created_at_ms: rfq.created_at_ms, expires_at_ms: rfq.created_at_ms + rfq.ttl_ms }, [
      { type: 'SOLVED', quote_id: quote.quote_id, at_ms: rfq.created_at_ms } as EventObject,
      { type: 'EXPIRE', at_ms: rfq.created_at_ms + rfq.ttl_ms } as EventObject,
    ]);
    expect(JSON.stringify(rfqSnapshot(rfq))).toBe(JSON.stringify(own));
  });

  it('keeps any other snapshot as given', async () => {
    const { trade } = await settledTrade();
    const orphaned = walk(tradeMachine, undefined, [
      { type: 'FILL' },
      { type: 'SETTLE_INITIATED' },
      { type: 'SETTLED', credit_id: 'cred_x' } as EventObject,
      { type: 'ORPHAN', leg: 'out' } as EventObject,
    ]);
    tradeLifecycle.store(trade, orphaned);
    expect(tradeSnapshot(trade)).toBe(orphaned);
    // A settled snapshot whose context is not exactly the packed one (a failure code left) is held whole too.
    const odd = {
      value: 'settled',
      status: 'active',
      context: { failure_code: 'execution_failed', settlement_credit_id: 'cred_1', orphaned_leg: null },
    } as const;
    tradeLifecycle.store(trade, odd);
    expect(tradeSnapshot(trade)).toBe(odd);
    // Same values, other key order: JSON would differ, so it is not packed.
    const reordered = {
      value: 'settled',
      status: 'active',
      context: { settlement_credit_id: 'cred_1', failure_code: null, orphaned_leg: null },
    } as const;
    tradeLifecycle.store(trade, reordered);
    expect(tradeSnapshot(trade)).toBe(reordered);
  });
});
