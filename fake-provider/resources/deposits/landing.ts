// An on-chain transfer lands on a deposit address (control plane): every refusal before anything is drawn,
// the deposit fault rules drawn at landing, then the stored deposit, its first step and its timers.
import type { Organization, World } from '../../world.ts';
import { ApiError } from '../../contract/errors.ts';
import { matches, type FaultSubject } from '../../../sim/index.ts';
import { requireAsset } from '../assets/index.ts';
import { accountStatus, accountStore } from '../accounts/index.ts';
import { findDepositAddress, isMonitored, type DepositAddress } from './addresses.ts';
import { canonicalTxHash, generateSourceAddress, generateTxHash, isChainAddress } from './chain-formats.ts';
import { scheduleChecks } from './checks.ts';
import type { DepositEffect, FlagReason } from './machine.ts';
import { applyEffects, depositLifecycle, depositStore, type Deposit, type DepositFaults } from './model.ts';

const NO_FAULTS: DepositFaults = Object.freeze({ drop: false, flag: null, delay_ms: 0 });

/**
 * Draws the deposit fault rules. A `partner_flagged` rule means nothing for an organization without
 * partner screening, so it is left unfired there (its `times` and probability untouched) unless another
 * flag rule also matches the deposit, in which case it may be drawn but is ignored.
 */
function drawFaults(world: World, da: DepositAddress, tx_hash: string, asset_key: string, partner: boolean): DepositFaults {
  // No deposit rule, nothing to draw: every such deposit shares one frozen record (read-only after landing).
  if (!world.sim.faults.has('deposit')) return NO_FAULTS;
  const subject: Omit<FaultSubject, 'accepts'> = { ids: [da.deposit_address_id, tx_hash], account_id: da.account_id, asset_key };
  let accepts = ['fail', 'flag', 'delay_ms'];
  if (!partner) {
    const flagRules = world.sim.faults
      .list()
      .filter((r) => r.target === 'deposit' && r.times !== 0 && 'flag' in r.effect && matches(r, { ...subject, accepts }));
    if (flagRules.every((r) => (r.effect as { flag: string }).flag === 'partner_flagged')) accepts = ['fail', 'delay_ms'];
  }
  const out: DepositFaults = { drop: false, flag: null, delay_ms: 0 };
  for (const rule of world.sim.faults.fire('deposit', { ...subject, accepts }, world.sim.now_ms())) {
    const e = rule.effect;
    if ('fail' in e) out.drop = true;
    else if ('flag' in e && out.flag === null && (partner || e.flag !== 'partner_flagged')) out.flag = e.flag as FlagReason;
    else if ('delay_ms' in e) out.delay_ms += e.delay_ms;
  }
  return out;
}

export interface LandInput {
  deposit_address_id: string;
  atoms: bigint;
  asset_key?: string;
  source_address?: string;
  tx_hash?: string;
}

interface Validated {
  da: DepositAddress;
  org: Organization;
  asset_key: string;
  tx_hash: string | undefined;
}

/** Every refusal happens here, before anything is drawn or stored. */
function validateLanding(world: World, input: LandInput): Validated {
  const da = findDepositAddress(world, input.deposit_address_id);
  if (!da) throw new ApiError('not_found', `no deposit address ${input.deposit_address_id}`, { param: 'deposit_address_id' });
  let asset_key = da.asset_key;
  if (input.asset_key !== undefined) {
    const asset = requireAsset(input.asset_key);
    if (asset.chain !== da.chain) {
      throw new ApiError(
        'invalid_parameter',
        `${asset.asset_key} is on ${asset.chain}; deposit address ${da.deposit_address_id} is on ${da.chain}`,
        { param: 'asset_key' },
      );
    }
    asset_key = asset.asset_key;
  }
  if (input.source_address !== undefined && !isChainAddress(da.chain, input.source_address)) {
    throw new ApiError('invalid_parameter', `source_address is not a valid ${da.chain} address`, { param: 'source_address' });
  }
  let tx_hash: string | undefined;
  if (input.tx_hash !== undefined) {
    tx_hash = canonicalTxHash(da.chain, input.tx_hash) ?? undefined;
    if (tx_hash === undefined)
      throw new ApiError('invalid_parameter', `tx_hash is not a ${da.chain} transaction hash`, { param: 'tx_hash' });
    if (depositStore(world).byTxHash.has(tx_hash))
      throw new ApiError('invalid_parameter', `transaction ${tx_hash} has already landed`, { param: 'tx_hash' });
  }
  if (!isMonitored(world, da)) {
    throw new ApiError('deposit_window_closed', `deposit address ${da.deposit_address_id} stopped being monitored at ${da.expires_at_ms}`, {
      param: 'deposit_address_id',
      details: { expires_at_ms: da.expires_at_ms },
    });
  }
  const account = accountStore(world).byId.get(da.account_id)!;
  if (accountStatus(account) === 'exported') {
    throw new ApiError('deposit_window_closed', `account ${da.account_id} is exported; its deposit addresses are no longer monitored`, {
      param: 'deposit_address_id',
    });
  }
  return { da, org: world.orgs.get(da.org_id)!, asset_key, tx_hash };
}

/**
 * An on-chain transfer lands on a deposit address (control plane). Deposits run whatever the account's
 * status short of exported: on a deactivated account the funds are already on chain, so they are credited.
 */
export function landDeposit(world: World, input: LandInput): Deposit {
  const { da, org, asset_key, tx_hash: given } = validateLanding(world, input);
  const store = depositStore(world);
  const tx_hash = given ?? generateTxHash(da.chain, store.rng);
  const source_address = input.source_address ?? generateSourceAddress(da.chain, store.rng);
  const now = world.sim.now_ms();
  const deposit_id = world.newId('dep');
  const faults = drawFaults(world, da, tx_hash, asset_key, org.partner_screening);
  const timing = world.profile.chains[da.chain];
  const initial = depositLifecycle.start<DepositEffect>(world, deposit_id, {
    required_confirmations: timing.finality_confirmations,
    partner_screening: org.partner_screening,
  });
  const earlier = store.byAddress.get(da.deposit_address_id);
  const d: Deposit = {
    deposit_id,
    address: da,
    asset_key,
    atoms: input.atoms,
    tx_hash,
    source_address,
    screening_deadline_ms: org.partner_screening ? now + world.profile.partner_window_ms : null,
    faults,
    repeat_on_single_use: da.single_use && earlier !== undefined && earlier.length > 0,
    landed_at_ms: now,
    confirm_step: world.profile.deposit_confirmation_steps === 'at_finality' ? timing.finality_confirmations : 1,
    credit_id: null,
    resolved_at_ms: null,
    seq: world.nextSeq(),
    snapshot: initial.snapshot,
  };
  store.byId.insert(d);
  if (earlier === undefined) store.byAddress.set(da.deposit_address_id, [d]);
  else earlier.push(d);
  applyEffects(world, d, initial.effects);
  scheduleChecks(world, d, timing.block_ms);
  return d;
}
