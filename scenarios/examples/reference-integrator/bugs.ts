// The deliberate bugs a buggy variant of the reference integrator carries, one flag each: the mistakes
// real webhook consumers make. `swapsim verify` must catch every one, for its own reason, within 10 runs
// (scenarios/verify/twins-a.test.ts, twins-b.test.ts).
export const BUGS = {
  'no-dedupe': 'applies every delivery, including one it already applied (a duplicate, or the feed repeating a webhook)',
  'no-signature-check': 'accepts deliveries without checking Svc-Signature (forged ones are applied)',
  'status-follows-last-event': 'sets the status to whatever event arrived last, so a late progress event un-settles a trade',
  'no-feed-catch-up': 'relies on webhooks alone and never reads GET /events, so events lost in an outage stay lost',
  'orphan-as-failed': 'treats *.settlement_orphaned as a failure, although the settlement is resubmitted and reconfirmed',
  'filled-as-settled': 'treats *.filled as final: status settled at fill, and the real settlement is never looked at',
  'fails-then-applies':
    'applies the event, then answers 500 (a step after the commit fails), so every first delivery is retried although it was taken',
  'slow-handler': "answers *.settled only after a 15 s synchronous re-read, past the provider's 10 s timeout",
  'racy-dedupe':
    'checks the event id, awaits a provider read, then marks it seen, outside the queue: two concurrent copies both get through',
  'no-secret-grace':
    'drops the previous webhook secret the moment a new one is configured, so a delivery signed just before a rotation gets 401',
  'restart-loses-state':
    'keeps balances in memory but its feed position on disk: after a restart it skips what it had read and never rebuilds it',
  'no-timestamp-check': 'checks the signature but not Svc-Timestamp, so a captured delivery replayed later (or one stamped ahead) is taken',
  'pending-counted-available':
    'counts a deposit as available when it is detected (deposit.pending), not when its credit is created, so a deposit still in screening, or one flagged later, is spendable',
  'flagged-deposit-credited': "credits a flagged deposit's detected amount, although a flagged deposit creates no credit",
  'cancel-failed-as-confirmed': 'takes cancel.failed as the end of a successful cancel (status confirmed)',
  'pending-settle-as-settled':
    'takes *.pending_settle as final (settled), so a settlement that times out or is orphaned from there is never seen',
  'recovery-claim-as-spent':
    'subtracts a recovered credit when the recovery is claimed, not when its payout confirms, so a payout that fails leaves the credit counted as gone',
  'retries-429-at-once': 'retries a 429 from the provider at once, without waiting for Retry-After',
  'latin1-body':
    'reads the webhook body as latin1 text and signs its UTF-8 re-encoding, so a delivery carrying non-ASCII text fails its own signature check',
  'reserialized-hmac':
    'checks the signature over JSON.stringify of the parsed body instead of the raw bytes, so a body with other whitespace or escapes fails',
  'reactivation-ignored': 'marks a destination suspended on destination.suspended but never clears it on destination.reactivated',
  'first-page-only':
    'reads only the first page of GET /events (20 a page) on each catch-up, from the top, and never follows next_cursor although has_more says there is more',
} as const;

export type Bug = keyof typeof BUGS;

export const BUG_NAMES = Object.keys(BUGS) as Bug[];

export function isBug(name: string): name is Bug {
  return Object.hasOwn(BUGS, name);
}
