// The engine benchmark's in-process client: a world with one organization, ready accounts (wallets
// derived, an Arbitrum ETH deposit address and a USDC destination each), and the model operations the
// routes call for one trade lifecycle (deposit → firm RFQ → accept → settle), with no HTTP in between.
import { newWorld } from '../../fake-provider/app.ts';
import { createOrganization } from '../../fake-provider/organizations.ts';
import type { Organization, World } from '../../fake-provider/world.ts';
import { requireAsset } from '../../fake-provider/resources/assets/index.ts';
import { accountStore, createAccount } from '../../fake-provider/resources/accounts/model.ts';
import {
  createDepositAddress,
  isMonitored,
  landDeposit,
  depositStatus,
  onDepositResolved,
  type Deposit,
  type DepositAddress,
} from '../../fake-provider/resources/deposits/index.ts';
import { registerDestination } from '../../fake-provider/resources/destinations/model.ts';
import { createRfq, rfqSnapshot, rfqStatus } from '../../fake-provider/resources/rfqs/model.ts';
import { acceptQuote } from '../../fake-provider/resources/rfqs/accept.ts';
import { tradeState, tradeStore } from '../../fake-provider/resources/trades/index.ts';
import { keccakReady } from '../../fake-provider/resources/assets/addresses.ts';

export const ARB_ETH = 'native.evm:42161';
export const ARB_USDC = 'erc20.evm:42161_0xaf88d065e77c8cc2239327c5edb3a432268e5831';
const EVM_ADDRESS = '0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf';
const ETH = 10n ** 18n;
/** Bound on each settle: far above one lifecycle's sim time (about 7 s), far below the addresses' TTL. */
export const SETTLE_BOUND_MS = 60 * 60_000;

export interface BenchAccount {
  account_id: string;
  destination_id: string;
  da: DepositAddress;
}

export interface BenchWorld {
  world: World;
  org: Organization;
  accounts: BenchAccount[];
  next: number;
  /** Trades started by the deposit reaction (batch and scenario modes). */
  started: string[];
  failures: string[];
}

/** `world`: a served runtime's world (bench:ui fills the one a server answers from); by default a new one. */
export async function benchWorld(
  n_accounts: number,
  seed = 'bench',
  world: World = newWorld({ seed, clock: 'virtual' }),
): Promise<BenchWorld> {
  await keccakReady; // as serve() does: the engine alone never yields long enough for WebAssembly to compile
  const org = createOrganization(world, { api_keys: ['sk_bench'] });
  const made = Array.from({ length: n_accounts }, () => createAccount(world, org, {}));
  await world.sim.scheduler.settle(SETTLE_BOUND_MS); // wallets derived
  const eth = requireAsset(ARB_ETH);
  const accounts = made.map((a) => ({
    account_id: a.account_id,
    destination_id: registerDestination(world, org.organization_id, a.account_id, { asset_key: ARB_USDC, address: EVM_ADDRESS })
      .destination_id,
    da: createDepositAddress(world, a, eth),
  }));
  return { world, org, accounts, next: 0, started: [], failures: [] };
}

function nextAccount(bw: BenchWorld): BenchAccount {
  const a = bw.accounts[bw.next++ % bw.accounts.length];
  // A week of sim time retires an address; the client asks for a fresh one, as an integrator would.
  if (!isMonitored(bw.world, a.da))
    a.da = createDepositAddress(bw.world, accountStore(bw.world).byId.get(a.account_id)!, requireAsset(ARB_ETH));
  return a;
}

/** A 2 ETH deposit lands on the next account's address (the control plane's POST /_sim/deposits). */
export function land(bw: BenchWorld): { deposit: Deposit; account: BenchAccount } {
  const account = nextAccount(bw);
  return { account, deposit: landDeposit(bw.world, { deposit_address_id: account.da.deposit_address_id, atoms: 2n * ETH }) };
}

/** POST /rfqs (firm, answered within wait_ms) then POST /quotes/{id}/accept on the verified deposit's credit. */
export function trade(bw: BenchWorld, account: BenchAccount, credit_id: string): string {
  const rfq = createRfq(bw.world, bw.org, {
    mode: 'firm',
    side: 'exact_in',
    from_asset_key: ARB_ETH,
    to_asset_key: ARB_USDC,
    amount_in_atoms: ETH.toString(),
    account_id: account.account_id,
    credit_id,
    destination_id: account.destination_id,
    ttl_ms: 1_000,
    wait_ms: 1_000,
  });
  if (rfqStatus(rfq) !== 'ready') throw new Error(`rfq ${rfq.rfq_id} is ${rfqStatus(rfq)}, not ready`);
  return acceptQuote(bw.world, bw.org, rfqSnapshot(rfq).context.best_quote_id!, { slippage_bps: '500' });
}

/** One complete lifecycle, step by step: land, settle to verified, RFQ + accept, settle to settled. */
export async function lifecycle(bw: BenchWorld): Promise<void> {
  const { deposit, account } = land(bw);
  await bw.world.sim.scheduler.settle(SETTLE_BOUND_MS);
  if (depositStatus(deposit) !== 'verified') throw new Error(`deposit ${deposit.deposit_id} is ${depositStatus(deposit)}`);
  const trade_id = trade(bw, account, deposit.credit_id!);
  await bw.world.sim.scheduler.settle(SETTLE_BOUND_MS);
  const t = tradeStore(bw.world).byId.get(trade_id)!;
  if (tradeState(t) !== 'settled') throw new Error(`trade ${trade_id} is ${tradeState(t)}`);
}

/**
 * The client reacting to deposit.verified: it requests a firm RFQ and accepts it right away (a task at
 * the same sim instant, as a webhook-driven client would). Lets one settle carry whole lifecycles.
 */
export function installReaction(bw: BenchWorld): void {
  const byAccount = new Map(bw.accounts.map((a) => [a.account_id, a]));
  onDepositResolved(bw.world, (world, d) => {
    const account = byAccount.get(d.address.account_id);
    if (!account) return;
    if (depositStatus(d) !== 'verified') {
      bw.failures.push(`deposit ${d.deposit_id} ${depositStatus(d)}`);
      return;
    }
    world.sim.scheduler.afterCall(0, 'bench.client_trade', () => {
      bw.started.push(trade(bw, account, d.credit_id!));
    });
  });
}

/** Counts the reaction's trades by state (the batch and memory checks). */
export function tradeOutcomes(bw: BenchWorld, ids: readonly string[]): Record<string, number> {
  const out: Record<string, number> = {};
  const { byId } = tradeStore(bw.world);
  for (const id of ids) {
    const s = tradeState(byId.get(id)!);
    out[s] = (out[s] ?? 0) + 1;
  }
  return out;
}
