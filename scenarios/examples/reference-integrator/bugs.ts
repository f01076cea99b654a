// The deliberate bugs a buggy variant of the reference integrator carries, one flag each: the mistakes
// real webhook consumers make. `swapsim verify` must catch every one (scenarios/verify/verify.test.ts).
export const BUGS = {
  'no-dedupe': 'applies every delivery, including one it already applied (a duplicate, or the feed repeating a webhook)',
  'no-signature-check': 'accepts deliveries without checking Svc-Signature (forged ones are applied)',
  'status-follows-last-event': 'sets the status to whatever event arrived last, so a late progress event un-settles a trade',
  'no-feed-catch-up': 'relies on webhooks alone and never reads GET /events, so events lost in an outage stay lost',
  'orphan-as-failed': 'treats *.settlement_orphaned as a failure, although the settlement is resubmitted and reconfirmed',
  'filled-as-settled': 'treats *.filled as final: status settled at fill, and the real settlement is never looked at',
} as const;

export type Bug = keyof typeof BUGS;

export const BUG_NAMES = Object.keys(BUGS) as Bug[];

export function isBug(name: string): name is Bug {
  return Object.hasOwn(BUGS, name);
}
