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
  'fails-then-applies': 'applies the event, then answers 500 (a step after the commit fails), so every first delivery is retried although it was taken',
  'slow-handler': 'answers *.settled only after a 15 s synchronous re-read, past the provider\'s 10 s timeout',
  'racy-dedupe': 'checks the event id, awaits a provider read, then marks it seen, outside the queue: two concurrent copies both get through',
  'no-secret-grace': 'drops the previous webhook secret the moment a new one is configured, so a delivery signed just before a rotation gets 401',
  'restart-loses-state': 'keeps balances in memory but its feed position on disk: after a restart it skips what it had read and never rebuilds it',
} as const;

export type Bug = keyof typeof BUGS;

export const BUG_NAMES = Object.keys(BUGS) as Bug[];

export function isBug(name: string): name is Bug {
  return Object.hasOwn(BUGS, name);
}
