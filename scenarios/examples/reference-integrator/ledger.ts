// What the integrator believes, and how events change it. Balances are a running sum: credit.created adds
// its atoms (so applying an event twice would count a credit twice: events are deduped by event_id), and
// credits the provider reports consumed are subtracted once each, re-read when a settlement or cancel
// completes. Trade, zap and cancel statuses follow progress events until a terminal one; on a terminal
// event the entity itself is re-read (the source of truth), and terminal statuses absorb later events. Deposits
// (by address), recoveries and destinations suspended by delta screening follow their events the same way.
import type { Bug } from './bugs.ts';
import { get, getAll, type ProviderConfig } from './provider.ts';

export interface Envelope {
  event_id: string;
  type: string;
  created_at_ms: number;
  account_id: string;
  data: Record<string, unknown>;
}

type Kind = 'trade' | 'zap' | 'cancel';

interface Book {
  /** asset_key → available atoms, as a running sum. */
  available: Map<string, bigint>;
  /** Consumed credits already subtracted (each once). */
  consumed: Set<string>;
  status: Record<Kind, Map<string, string>>;
  /** Atoms of each credit this book has seen created (the recovery-claim-as-spent variant subtracts from them). */
  credits: Map<string, { asset_key: string; atoms: bigint }>;
  /** Credits of deposits the pending-counted-available variant already counted at detection. */
  counted_pending: Set<string>;
  /** By deposit address: pending until verified or flagged (terminal: a late deposit.pending changes nothing). */
  deposits: Map<string, 'pending' | 'verified' | 'flagged'>;
  recoveries: Map<string, string>;
  /** Destinations it heard of through delta screening, and whether each is suspended now. */
  destinations: Map<string, boolean>;
  /** created_at_ms of the event each destination's state comes from. */
  destination_at: Map<string, number>;
}

const TERMINAL = new Set(['settled', 'failed', 'confirmed']);
const ID_FIELD: Record<Kind, string> = { trade: 'trade_id', zap: 'zap_id', cancel: 'cancel_id' };
const PATH: Record<Kind, string> = { trade: '/trades/', zap: '/zaps/', cancel: '/cancels/' };
/** The status a progress event announces (cancel.created → pending, the others by their name). */
const PROGRESS: Record<string, string> = {
  created: 'pending',
  sent: 'sent',
  awaiting_deposit: 'awaiting_deposit',
  executing: 'executing',
  filled: 'filled',
  pending_settle: 'pending_settle',
};
const SETTLEMENT_NEWS = new Set(['settlement_orphaned', 'settlement_reconfirmed']);

export interface Ledger {
  /** True when the event changed the ledger (false: already applied). */
  apply(event: Envelope): Promise<boolean>;
  /** created_at_ms of the newest event applied. */
  newest_ms(): number;
  state(account_id: string): {
    balances: Array<{ asset_key: string; available_atoms: string }>;
    trades: Array<{ trade_id: string; status: string }>;
    zaps: Array<{ zap_id: string; status: string }>;
    cancels: Array<{ cancel_id: string; status: string }>;
    deposits: Array<{ deposit_address_id: string; status: string; credited: boolean }>;
    recoveries: Array<{ recovery_id: string; status: string }>;
    destinations: Array<{ destination_id: string; suspended: boolean }>;
  };
}

export function createLedger(provider: () => ProviderConfig, bugs: ReadonlySet<Bug>): Ledger {
  const polite = { ignore_retry_after: bugs.has('retries-429-at-once') };
  const seen = new Set<string>();
  let newest_ms = 0;
  const books = new Map<string, Book>();
  const book = (account_id: string): Book => {
    let b = books.get(account_id);
    if (!b)
      books.set(
        account_id,
        (b = {
          available: new Map(),
          consumed: new Set(),
          status: { trade: new Map(), zap: new Map(), cancel: new Map() },
          credits: new Map(),
          counted_pending: new Set(),
          deposits: new Map(),
          recoveries: new Map(),
          destinations: new Map(),
          destination_at: new Map(),
        }),
      );
    return b;
  };
  const add = (b: Book, asset_key: string, atoms: bigint): void => {
    b.available.set(asset_key, (b.available.get(asset_key) ?? 0n) + atoms);
  };

  /** Subtracts every credit the provider now reports consumed that this book has not subtracted yet. */
  async function reconcileConsumed(account_id: string): Promise<void> {
    const b = book(account_id);
    const consumed = await getAll<{ credit_id: string; asset_key: string; atoms: string }>(
      provider(),
      `/accounts/${account_id}/credits?status=consumed`,
      'credits',
      polite,
    );
    for (const c of consumed) {
      if (b.consumed.has(c.credit_id)) continue;
      b.consumed.add(c.credit_id);
      add(b, c.asset_key, -BigInt(c.atoms));
    }
  }

  async function readTruth(kind: Kind, id: string): Promise<string> {
    const body = await get<Record<string, { status: string }>>(provider(), PATH[kind] + encodeURIComponent(id), polite);
    return body[kind].status;
  }

  async function track(kind: Kind, account_id: string, id: string, news: string): Promise<void> {
    const statuses = book(account_id).status[kind];
    const current = statuses.get(id);
    if (news === 'settlement_orphaned' && bugs.has('orphan-as-failed')) return void statuses.set(id, 'failed');
    if (current !== undefined && TERMINAL.has(current) && !bugs.has('status-follows-last-event')) return;
    if (news === 'filled' && bugs.has('filled-as-settled')) return void statuses.set(id, 'settled');
    if (news === 'pending_settle' && bugs.has('pending-settle-as-settled')) return void statuses.set(id, 'settled');
    if (kind === 'cancel' && news === 'failed' && bugs.has('cancel-failed-as-confirmed')) return void statuses.set(id, 'confirmed');
    if (Object.hasOwn(PROGRESS, news)) return void statuses.set(id, PROGRESS[news]);
    if (!TERMINAL.has(news) && !SETTLEMENT_NEWS.has(news)) return; // a type this version does not know: ignored
    // Terminal (or settlement) news: the entity itself says where it stands.
    const truth = await readTruth(kind, id);
    statuses.set(id, truth);
    if (truth === 'settled' || truth === 'confirmed') await reconcileConsumed(account_id);
  }

  return {
    async apply(event) {
      if (seen.has(event.event_id) && !bugs.has('no-dedupe')) return false;
      // The racy variant validates the account between its check and its mark, with no queue around it.
      if (bugs.has('racy-dedupe')) await get(provider(), `/accounts/${encodeURIComponent(event.account_id)}`);
      const [family, news] = event.type.split('.', 2) as [string, string];
      const b = book(event.account_id);
      if (family === 'deposit' && (news === 'pending' || news === 'verified' || news === 'flagged')) {
        const at = String(event.data.deposit_address_id);
        if (news !== 'pending' || !b.deposits.has(at)) b.deposits.set(at, news);
      }
      if (family === 'recovery' && (news === 'created' || news === 'claimed' || news === 'failed')) {
        // created only starts one: a late recovery.created never undoes a claim or a failure.
        const id = String(event.data.recovery_id);
        if (news !== 'created' || !b.recoveries.has(id)) b.recoveries.set(id, news);
      }
      // A destination's state is its newest event's (by created_at_ms): a suspension delivered after the
      // reactivation that followed it (reordered or retried) does not suspend it again.
      const destination_id = String(event.data.destination_id);
      const newest = (b.destination_at.get(destination_id) ?? -Infinity) <= event.created_at_ms;
      if (event.type === 'destination.suspended' && newest) {
        b.destinations.set(destination_id, true);
        b.destination_at.set(destination_id, event.created_at_ms);
      }
      if (event.type === 'destination.reactivated' && !bugs.has('reactivation-ignored') && newest) {
        b.destinations.set(destination_id, false);
        b.destination_at.set(destination_id, event.created_at_ms);
      }
      if (event.type === 'credit.created') {
        const credit = { asset_key: String(event.data.asset_key), atoms: BigInt(String(event.data.atoms)) };
        b.credits.set(String(event.data.credit_id), credit);
        // The variant that counted the deposit at detection does not count its credit again.
        if (!b.counted_pending.has(String(event.data.credit_id))) add(b, credit.asset_key, credit.atoms);
      } else if (event.type === 'deposit.pending' && bugs.has('pending-counted-available')) {
        add(b, String(event.data.asset_key), BigInt(String(event.data.detected_atoms)));
      } else if (event.type === 'deposit.verified' && bugs.has('pending-counted-available')) {
        b.counted_pending.add(String(event.data.credit_id));
      } else if (event.type === 'deposit.flagged' && bugs.has('flagged-deposit-credited')) {
        add(b, String(event.data.asset_key), BigInt(String(event.data.detected_atoms)));
      } else if (event.type === 'recovery.claimed' && bugs.has('recovery-claim-as-spent')) {
        const credit = b.credits.get(String(event.data.credit_id));
        if (credit && !b.consumed.has(String(event.data.credit_id))) {
          b.consumed.add(String(event.data.credit_id));
          add(b, credit.asset_key, -credit.atoms);
        }
      } else if (family === 'trade' || family === 'zap' || family === 'cancel') {
        await track(family, event.account_id, String(event.data[ID_FIELD[family]]), news);
      }
      // Marked seen only once applied: a failed re-read answers 500 and the retry applies it.
      seen.add(event.event_id);
      newest_ms = Math.max(newest_ms, event.created_at_ms);
      return true;
    },
    newest_ms: () => newest_ms,
    state(account_id) {
      const b = book(account_id);
      const list = <K extends string>(m: Map<string, string>, key: K) =>
        [...m].map(([id, status]) => ({ [key]: id, status }) as { [P in K]: string } & { status: string });
      return {
        balances: [...b.available].map(([asset_key, atoms]) => ({ asset_key, available_atoms: atoms.toString() })),
        trades: list(b.status.trade, 'trade_id'),
        zaps: list(b.status.zap, 'zap_id'),
        cancels: list(b.status.cancel, 'cancel_id'),
        deposits: [...b.deposits].map(([deposit_address_id, status]) => ({ deposit_address_id, status, credited: status === 'verified' })),
        recoveries: [...b.recoveries].map(([recovery_id, status]) => ({ recovery_id, status })),
        destinations: [...b.destinations].map(([destination_id, suspended]) => ({ destination_id, suspended })),
      };
    },
  };
}
