// What an RFQ request must satisfy before anything is drawn or stored: TTL and wait bounds, the amount of
// its side, the parties it names (firm: operable account, usable destination, spendable credit), and the
// credit's balance against the priced input. Each check throws the spec's error; none changes anything.
import type { World } from '../../world.ts';
import { ApiError } from '../../contract/errors.ts';
import { oneOfAmount } from '../../contract/amounts.ts';
import { requireAccount, requireOperable, type Account } from '../accounts/index.ts';
import type { Asset } from '../assets/index.ts';
import { creditHolder, creditStatus, requireCredit, type Credit } from '../credits/index.ts';
import { destinationStatus, getDestinationRecord, requireUsableDestination } from '../destinations/index.ts';
import type { CreateRfqBody } from './schemas.ts';

export type Mode = 'indicative' | 'firm';

export function checkBounds(world: World, body: CreateRfqBody): { ttl_ms: number; wait_ms: number } {
  const ttl_ms = body.ttl_ms ?? 1000;
  const wait_ms = body.wait_ms ?? 250;
  const { min, max } = world.profile.rfq_ttl_ms;
  if (ttl_ms < min || ttl_ms > max) throw new ApiError('invalid_parameter', `ttl_ms must be from ${min} to ${max}`, { param: 'ttl_ms' });
  const wait_max = world.profile.rfq_wait_ms_max;
  if (wait_ms < 0 || wait_ms > wait_max)
    throw new ApiError('invalid_parameter', `wait_ms must be from 0 to ${wait_max}`, { param: 'wait_ms' });
  return { ttl_ms, wait_ms };
}

/** Each side's amount fields and the other side's (field names made once: this runs on every RFQ). */
const AMOUNT_FIELDS = {
  exact_in: { atoms: 'amount_in_atoms', ui: 'amount_in_ui', others: ['amount_out_atoms', 'amount_out_ui'] },
  exact_out: { atoms: 'amount_out_atoms', ui: 'amount_out_ui', others: ['amount_in_atoms', 'amount_in_ui'] },
} as const;

/** The amount of the request's side (the other side's fields are refused), in that side's asset atoms. */
export function requestedAmount(body: CreateRfqBody, from: Asset, to: Asset): bigint {
  const fields = AMOUNT_FIELDS[body.side];
  for (const f of fields.others) {
    if (body[f] !== undefined)
      throw new ApiError('invalid_parameter', `${f} is not a parameter of side=${body.side}; give ${fields.atoms} or ${fields.ui}`, {
        param: f,
      });
  }
  const amount = oneOfAmount(body, fields.atoms, fields.ui, body.side === 'exact_in' ? from.decimals : to.decimals, true)!;
  if (amount === 0n) {
    const param = body[fields.atoms] !== undefined ? fields.atoms : fields.ui;
    throw new ApiError('invalid_parameter', `${param} must be greater than zero`, { param });
  }
  return amount;
}

function requireField(value: string | undefined, param: string): string {
  if (value === undefined) throw new ApiError('parameter_missing', `${param} is required when mode=firm`, { param });
  return value;
}

/** The credit the trade would draw from, as it must be right now: the account's, of the input asset, open and free. */
export function requireSpendableCredit(
  world: World,
  org_id: string,
  account_id: string,
  credit_id: string,
  from_asset_key: string,
): Credit {
  const credit = requireCredit(world, org_id, credit_id, { account_id });
  if (credit.asset_key !== from_asset_key) {
    throw new ApiError('invalid_parameter', `credit ${credit_id} holds ${credit.asset_key}, not ${from_asset_key}`, { param: 'credit_id' });
  }
  if (creditStatus(credit) === 'consumed')
    throw new ApiError('credit_already_consumed', `credit ${credit_id} is no longer open`, { param: 'credit_id' });
  const holder = creditHolder(credit);
  if (holder !== null) {
    throw new ApiError('credit_in_use', `credit ${credit_id} is in use by ${holder}; it can be used again once that finishes`, {
      param: 'credit_id',
      details: { credit_id },
    });
  }
  return credit;
}

export interface Parties {
  account: Account | null;
  destination_id: string | null;
  credit: Credit | null;
}

/** Firm: account operable, destination usable for the output, credit spendable. */
export function firmParties(world: World, org_id: string, body: CreateRfqBody, from: Asset, to: Asset): Parties {
  const account_id = requireField(body.account_id, 'account_id');
  const destination_id = requireField(body.destination_id, 'destination_id');
  const credit_id = requireField(body.credit_id, 'credit_id');
  const account = requireAccount(world, org_id, account_id);
  requireOperable(account, 'rfq');
  requireUsableDestination(world, org_id, account_id, destination_id, to.asset_key);
  return { account, destination_id, credit: requireSpendableCredit(world, org_id, account_id, credit_id, from.asset_key) };
}

/**
 * Indicative: nothing is required, but what is named must exist and fit: the account in the org, the
 * destination and credit on that account with the right assets (suspension, locks and balance are a
 * firm RFQ's concern).
 */
export function indicativeParties(world: World, org_id: string, body: CreateRfqBody, from: Asset, to: Asset): Parties {
  if (body.account_id === undefined) {
    for (const param of ['destination_id', 'credit_id'] as const) {
      if (body[param] !== undefined)
        throw new ApiError('parameter_missing', `account_id is required with ${param}`, { param: 'account_id' });
    }
    return { account: null, destination_id: null, credit: null };
  }
  const account = requireAccount(world, org_id, body.account_id);
  if (body.destination_id !== undefined) {
    const d = getDestinationRecord(world, body.destination_id);
    if (!d || d.org_id !== org_id || d.account_id !== account.account_id || destinationStatus(d) === 'deleted') {
      throw new ApiError('destination_not_found', `no destination ${body.destination_id}`, { param: 'destination_id' });
    }
    if (d.asset_key !== to.asset_key) {
      throw new ApiError('invalid_parameter', `destination ${d.destination_id} is for ${d.asset_key}, not ${to.asset_key}`, {
        param: 'destination_id',
      });
    }
  }
  let credit: Credit | null = null;
  if (body.credit_id !== undefined) {
    credit = requireCredit(world, org_id, body.credit_id, { account_id: account.account_id });
    if (credit.asset_key !== from.asset_key) {
      throw new ApiError('invalid_parameter', `credit ${credit.credit_id} holds ${credit.asset_key}, not ${from.asset_key}`, {
        param: 'credit_id',
      });
    }
  }
  return { account, destination_id: body.destination_id ?? null, credit };
}

export function requireBalance(credit: Credit | null, mode: Mode, amount_in_atoms: bigint): void {
  if (mode !== 'firm' || credit === null || amount_in_atoms <= credit.atoms) return;
  throw new ApiError('insufficient_balance', `the trade needs ${amount_in_atoms} atoms; credit ${credit.credit_id} holds ${credit.atoms}`, {
    param: 'credit_id',
    details: { credit_id: credit.credit_id, required_atoms: amount_in_atoms.toString(), available_atoms: credit.atoms.toString() },
  });
}
