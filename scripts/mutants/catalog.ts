// The planted-bug catalog (`npm run mutants`): realistic bugs, each a small edit of the fake's source,
// that the property tests and the spec oracle in /_sim/invariants must catch. Each edit names a file, a
// piece of text that must occur exactly once in it, and what replaces it. A bug only an example test
// catches does not count: the runner runs the property tests alone (scripts/mutants/run.ts).
interface Edit {
  file: string;
  find: string;
  replace: string;
}

export interface Mutant {
  id: string;
  area:
    | 'credits'
    | 'execution'
    | 'trades'
    | 'zaps'
    | 'cancels'
    | 'recoveries'
    | 'deposits'
    | 'webhooks'
    | 'idempotency'
    | 'rfqs'
    | 'destinations';
  /** What the bug does, as a reviewer would describe it. */
  summary: string;
  edits: Edit[];
}

const DRIVER = 'fake-provider/resources/execution/driver.ts';
const ZAPS = 'fake-provider/resources/zaps/model.ts';
const TRADES = 'fake-provider/resources/trades/model.ts';
const CANCELS = 'fake-provider/resources/cancels/model.ts';
const RECOVERIES = 'fake-provider/resources/recoveries/model.ts';
const RECOVERY_MACHINE = 'fake-provider/resources/recoveries/machine.ts';
const DEPOSITS = 'fake-provider/resources/deposits/model.ts';
const DEPOSIT_MACHINE = 'fake-provider/resources/deposits/machine.ts';
const WEBHOOKS = 'fake-provider/resources/webhooks/model.ts';
const DELIVERY_MACHINE = 'fake-provider/resources/webhooks/machine.ts';
const IDEMPOTENCY = 'fake-provider/http/idempotency.ts';

const RECONFIRM = `        swap.settlement![ORPHANED[task.leg!]] = false;
        ops.send(world, swap, { type: 'RECONFIRM', leg: task.leg! });`;
const ORPHANED_FAILS = `  ops.send(world, swap, { type: 'ORPHAN', leg: 'out' });
  failSwap(world, swap, ops, code);`;
const CANCEL_CONFIRMED = `      consumeCredit(world, c.credit_id, c.cancel_id);
      publish(world, c.org_id, c.account_id, 'cancel.confirmed', eventData(c, { tx_hash: ctx.tx_hash }));`;
const CANCEL_FAILED = `      releaseCredit(world, c.credit_id, c.cancel_id);
      publish(world, c.org_id, c.account_id, 'cancel.failed', eventData(c, { failure_code: ctx.failure_code }));`;
const TRADE_SETTLED = `      publishDerived(world, org_id, account_id, e.event_type, { source: t, build: settledData });
      continue;`;

const OTP_EXPIRY = 'if (world.sim.now_ms() >= r.otp.expires_at_ms) {';
const RETRY_ALLOWED =
  'return ctx.first_attempt_at_ms !== null && nextRetryAt(ctx, at_ms) <= ctx.first_attempt_at_ms + ctx.retry_window_ms;';
const RECOVERY_CLAIMED_STATE = "    claimed: { on: { PAYOUT_FAILED: { target: 'failed', actions: 'claimFailed' } } },";

export const MUTANTS: readonly Mutant[] = [
  {
    id: 'reconfirm-credits-again',
    area: 'execution',
    summary: "a reorg reconfirm credits the swap's output a second time",
    edits: [
      {
        file: DRIVER,
        find: RECONFIRM,
        replace: `${RECONFIRM}
    createCredit(world, { org_id: swap.org_id, account_id: swap.account_id, asset_key: swap.to_asset_key, atoms: swap.amount_out_atoms, source_type: 'trade_settlement', source_id: swap.id, role: 'reconfirmed' });`,
      },
    ],
  },
  {
    id: 'orphaned-fault-settles',
    area: 'execution',
    summary: 'a settlement_orphaned failure settles the swap anyway',
    edits: [
      {
        file: DRIVER,
        find: ORPHANED_FAILS,
        replace: `  ops.send(world, swap, { type: 'ORPHAN', leg: 'out' });
  settle(world, swap, ops);`,
      },
    ],
  },
  {
    id: 'failed-swap-consumes-credit',
    area: 'execution',
    summary: 'a failed trade or zap consumes its source credit instead of releasing it',
    edits: [
      {
        file: DRIVER,
        find: '  releaseCredit(world, swap.credit_id, swap.id);\n  clearPending(world, pendingKey(swap));',
        replace: '  consumeCredit(world, swap.credit_id, swap.id);\n  clearPending(world, pendingKey(swap));',
      },
    ],
  },
  {
    id: 'change-from-output',
    area: 'execution',
    summary: 'change is computed from the output amount instead of the input',
    edits: [
      {
        file: DRIVER,
        find: 'const change = source.atoms - swap.amount_in_atoms;',
        replace: 'const change = source.atoms - swap.amount_out_atoms;',
      },
    ],
  },
  {
    id: 'pending-output-kept',
    area: 'credits',
    summary: "a settled swap's pending output is never cleared",
    edits: [
      { file: DRIVER, find: '  clearPending(world, pendingKey(swap));\n  createCredit(world, {', replace: '  createCredit(world, {' },
    ],
  },
  {
    id: 'zap-fills-at-gross',
    area: 'zaps',
    summary: 'a zap pays out its gross output: fees shown but not deducted',
    edits: [
      {
        file: ZAPS,
        find: 'swap.amount_out_atoms = now.expected_out_atoms;',
        replace: 'swap.amount_out_atoms = now.expected_out_atoms + now.fees.total_atoms;',
      },
    ],
  },
  {
    id: 'zap-floor-ignored',
    area: 'zaps',
    summary: 'a zap fills below its min_amount_out floor',
    edits: [{ file: ZAPS, find: "  if (now.expected_out_atoms < z.min_amount_out_atoms) return 'min_amount_out_not_met';\n", replace: '' }],
  },
  {
    id: 'zap-expiry-ignored',
    area: 'zaps',
    summary: "a zap's expires_at_ms is never scheduled, so it executes after expiring",
    edits: [
      {
        file: ZAPS,
        find: "  if (z.expires_at_ms !== null) z.expiry_task_id = world.sim.scheduler.schedule(z.expires_at_ms, 'zap.expire', { zap_id });",
        replace: '',
      },
    ],
  },
  {
    id: 'zap-recovery-without-opt-in',
    area: 'recoveries',
    summary: 'failed zaps get a recovery in organizations that did not enable recovery',
    edits: [
      {
        file: RECOVERIES,
        find: 'if (input.credit_id === null || !world.orgs.get(input.org_id)?.recovery_enabled) return null;',
        replace: 'if (input.credit_id === null) return null;',
      },
    ],
  },
  {
    id: 'second-recovery-per-credit',
    area: 'recoveries',
    summary: 'a second failed zap on a credit binds a second recovery to it, both activatable',
    edits: [
      {
        file: RECOVERIES,
        find: "  if (existing && recoveryStatus(existing) !== 'claimed') return { recovery_id: existing.recovery_id, credit_id: existing.credit_id };\n",
        replace: '',
      },
    ],
  },
  {
    id: 'recovery-any-otp',
    area: 'recoveries',
    summary: 'a recovery claim accepts any OTP',
    edits: [
      { file: RECOVERIES, find: 'if (r.otp === null || !sameSecret(r.otp.code, input.otp_code)) {', replace: 'if (r.otp === null) {' },
    ],
  },
  {
    id: 'recovery-otp-never-expires',
    area: 'recoveries',
    summary: "an OTP's expiry is compared in the wrong unit, so it never expires",
    edits: [
      {
        file: RECOVERIES,
        find: 'if (world.sim.now_ms() >= r.otp.expires_at_ms) {',
        replace: 'if (world.sim.now_ms() / 1000 >= r.otp.expires_at_ms) {',
      },
    ],
  },
  {
    id: 'recovery-claimed-twice',
    area: 'recoveries',
    summary: 'claiming a claimed recovery is not refused with recovery_already_claimed',
    edits: [
      {
        file: RECOVERIES,
        find: "  if (!r) throw notFound();\n  if (recoveryStatus(r) === 'claimed') throw alreadyClaimed(r);\n",
        replace: '  if (!r) throw notFound();\n',
      },
    ],
  },
  {
    id: 'trade-settled-twice',
    area: 'trades',
    summary: 'trade.settled is published twice',
    edits: [
      {
        file: TRADES,
        find: TRADE_SETTLED,
        replace: `      publishDerived(world, org_id, account_id, e.event_type, { source: t, build: settledData });
      publishDerived(world, org_id, account_id, e.event_type, { source: t, build: settledData });
      continue;`,
      },
    ],
  },
  {
    id: 'quote-accepted-twice',
    area: 'rfqs',
    summary: 'a consumed quote is not refused with quote_consumed',
    edits: [
      {
        file: 'fake-provider/resources/rfqs/accept.ts',
        find: "  if (quoteStatus(quote) === 'consumed') {",
        replace: "  if (quoteStatus(quote) === 'consumed' && rfq.mode !== 'firm') {",
      },
    ],
  },
  {
    id: 'cancel-confirmed-keeps-credit',
    area: 'cancels',
    summary: 'a confirmed cancel releases its credit instead of consuming it (the money left, the credit stays spendable)',
    edits: [{ file: CANCELS, find: CANCEL_CONFIRMED, replace: CANCEL_CONFIRMED.replace('consumeCredit', 'releaseCredit') }],
  },
  {
    id: 'cancel-failed-consumes-credit',
    area: 'cancels',
    summary: 'a failed cancel consumes its credit',
    edits: [{ file: CANCELS, find: CANCEL_FAILED, replace: CANCEL_FAILED.replace('releaseCredit', 'consumeCredit') }],
  },
  {
    id: 'cancel-confirmed-twice',
    area: 'cancels',
    summary: 'cancel.confirmed is published twice',
    edits: [
      {
        file: CANCELS,
        find: CANCEL_CONFIRMED,
        replace: `${CANCEL_CONFIRMED}
      publish(world, c.org_id, c.account_id, 'cancel.confirmed', eventData(c, { tx_hash: ctx.tx_hash }));`,
      },
    ],
  },
  {
    id: 'verified-before-partner-window',
    area: 'deposits',
    summary: 'a deposit is verified at finality while its partner screening window is still open',
    edits: [
      { file: DEPOSIT_MACHINE, find: '      context.screened &&\n      !context.partner_window_open,', replace: '      context.screened,' },
    ],
  },
  {
    id: 'partner-flag-after-deadline',
    area: 'deposits',
    summary: 'a partner flag is honoured after the screening deadline',
    edits: [
      {
        file: DEPOSITS,
        find: "const closed = status !== 'pending' || !d.snapshot.context.partner_window_open || world.sim.now_ms() > d.screening_deadline_ms!;",
        replace: "const closed = status !== 'pending';",
      },
      {
        file: DEPOSIT_MACHINE,
        find: "PARTNER_FLAG: { guard: 'partnerWindowOpen', target: 'flagged'",
        replace: "PARTNER_FLAG: { target: 'flagged'",
      },
    ],
  },
  {
    id: 'flagged-deposit-credited',
    area: 'deposits',
    summary: 'a flagged deposit is credited anyway',
    edits: [
      {
        file: DEPOSITS,
        find: "    } else if (effect.type === 'flagged') {\n      clearPending(world, pendingKey(d));",
        replace: `    } else if (effect.type === 'flagged') {
      createCredit(world, { org_id: d.org_id, account_id: d.account_id, asset_key: d.asset_key, atoms: d.atoms, source_type: 'deposit', source_id: d.tx_hash });
      clearPending(world, pendingKey(d));`,
      },
    ],
  },
  {
    id: 'deposit-network-fee',
    area: 'deposits',
    summary: 'a verified deposit is credited less a 0.1% "network fee" the spec does not have',
    edits: [
      {
        file: DEPOSITS,
        find: "        atoms: d.atoms,\n        source_type: 'deposit',",
        replace: "        atoms: d.atoms - d.atoms / 1000n,\n        source_type: 'deposit',",
      },
    ],
  },
  {
    id: 'retries-past-72h',
    area: 'webhooks',
    summary: 'webhook retries never stop at the 72 h window',
    edits: [{ file: DELIVERY_MACHINE, find: RETRY_ALLOWED, replace: 'return ctx.first_attempt_at_ms !== null;' }],
  },
  {
    id: 'any-answer-is-success',
    area: 'webhooks',
    summary: 'a delivery answered with any HTTP status (500 included) counts as delivered',
    edits: [{ file: WEBHOOKS, find: 'step(world, d, is2xx(http_status) ?', replace: 'step(world, d, http_status !== 0 ?' }],
  },
  {
    id: 'replay-re-executes',
    area: 'idempotency',
    summary: 'an idempotent replay runs the write again instead of returning the first answer',
    edits: [
      {
        file: IDEMPOTENCY,
        find: '    return { reply: existing.kept ? keptReply(existing.kept) : await existing.reply!, replayed: true };',
        replace: '    return { reply: await execute(), replayed: true };',
      },
    ],
  },
  {
    id: 'key-reuse-replays',
    area: 'idempotency',
    summary: 'the same Idempotency-Key with a different payload replays the first answer instead of 409',
    edits: [
      {
        file: IDEMPOTENCY,
        find: '    if (existing.fingerprint !== print) {',
        replace: '    if (existing.fingerprint !== print && existing.reply === undefined) {',
      },
    ],
  },
  {
    id: 'suspended-destination-allowed',
    area: 'destinations',
    summary: 'a suspended destination is accepted for new trades, zaps and cancels',
    edits: [
      {
        file: 'fake-provider/resources/destinations/model.ts',
        find: "  if (destinationStatus(d) === 'suspended') {\n    const { suspended_at_ms, suspension_reason } = d.snapshot.context;",
        replace:
          "  if (destinationStatus(d) === 'suspended' && false) {\n    const { suspended_at_ms, suspension_reason } = d.snapshot.context;",
      },
    ],
  },
  // Issue 28: one per class of bug the property tests used not to reach.
  {
    id: 'pending-keyed-per-balance-row',
    area: 'credits',
    summary: "a swap's pending output is kept per account and asset, so two swaps into one asset overwrite each other's pending amount",
    edits: [
      {
        file: DRIVER,
        find: 'const pendingKey = (swap: Swap): string => swap.id;',
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the planted bug's source text
        replace: 'const pendingKey = (swap: Swap): string => `${swap.account_id}|${swap.to_asset_key}`;',
      },
    ],
  },
  {
    id: 'zap-draws-first-credit-of-asset',
    area: 'zaps',
    summary: "a credit-funded zap draws from the account's first open credit of the asset instead of the credit it names",
    edits: [
      {
        file: ZAPS,
        find: "import { creditHolder, creditStatus, lockCredit, releaseCredit, requireCredit, type Credit } from '../credits/index.ts';",
        replace:
          "import { creditHolder, creditsOf, creditStatus, lockCredit, releaseCredit, requireCredit, type Credit } from '../credits/index.ts';",
      },
      {
        file: ZAPS,
        find: '  const credit = requireCredit(world, org_id, credit_id, { account_id });\n  if (credit.asset_key !== from.asset_key) {',
        replace:
          "  const named = requireCredit(world, org_id, credit_id, { account_id });\n  const credit = creditsOf(world, account_id).find((c) => c.asset_key === named.asset_key && creditStatus(c) === 'open') ?? named;\n  if (credit.asset_key !== from.asset_key) {",
      },
    ],
  },
  {
    id: 'claimed-recovery-reactivates',
    area: 'recoveries',
    summary: 'a claimed recovery can be activated again (a fresh OTP for a credit already being paid out)',
    edits: [
      {
        file: RECOVERIES,
        find: "  if (recoveryStatus(r) === 'claimed') throw alreadyClaimed(r);\n  requireOpenCredit(world, r);",
        replace: '  requireOpenCredit(world, r);',
      },
      {
        file: RECOVERY_MACHINE,
        find: RECOVERY_CLAIMED_STATE,
        replace:
          "    claimed: { on: { PAYOUT_FAILED: { target: 'failed', actions: 'claimFailed' }, ACTIVATE: { target: 'active', actions: 'sendOtp' } } },",
      },
    ],
  },
  {
    id: 'otp-valid-at-expiry',
    area: 'recoveries',
    summary: 'an OTP is still accepted at the very instant its validity ends (off by one tick)',
    edits: [{ file: RECOVERIES, find: OTP_EXPIRY, replace: OTP_EXPIRY.replace('>=', '>') }],
  },
  {
    id: 'zap-ignores-input-reorg',
    area: 'zaps',
    summary: "a reorg of a settled zap's out leg (its input leaving the account) is used up but ignored: no orphan, no resubmission",
    edits: [
      {
        file: DRIVER,
        find: "  if (!ops.send(world, swap, { type: 'ORPHAN', leg: which })) return;",
        replace: "  if ((swap.kind === 'zap' && which === 'out') || !ops.send(world, swap, { type: 'ORPHAN', leg: which })) return;",
      },
    ],
  },
  {
    id: 'verified-at-finality-unscreened',
    area: 'deposits',
    summary: 'a deposit verifies at finality without waiting for its screening (correct only while screening is faster than finality)',
    edits: [
      {
        file: DEPOSIT_MACHINE,
        find: '      context.confirmations + event.blocks >= context.required_confirmations &&\n      context.screened &&\n',
        replace: '      context.confirmations + event.blocks >= context.required_confirmations &&\n',
      },
    ],
  },
  {
    id: 'deleted-org-recovery-binding-kept',
    area: 'recoveries',
    summary:
      "deleting an organization leaves its recoveries' account + credit index behind, so the public recover-funds route still finds one and fails with a 500",
    edits: [{ file: RECOVERIES, find: '  dropWhere(store.byBinding, mine);\n', replace: '' }],
  },
  {
    id: 'webhook-guard-knows-only-127-0-0-1',
    area: 'webhooks',
    summary:
      "the webhook destination guard recognises swapsim's own address only as 127.0.0.1, not localhost, ::1, 127.x or 0.0.0.0 spellings",
    edits: [
      {
        file: 'fake-provider/resources/webhooks/destinations.ts',
        find: 'if (self.port !== null && port === self.port && isLocal(a, self.host)) return',
        replace: "if (self.port !== null && port === self.port && a === '127.0.0.1') return",
      },
    ],
  },
  {
    id: 'quote-expiry-one-tick-late',
    area: 'rfqs',
    summary: 'a firm quote is still accepted at the instant its expires_at_ms is reached (expiry enforced one tick late)',
    edits: [
      {
        file: 'fake-provider/resources/rfqs/model.ts',
        find: "world.sim.scheduler.schedule(expires_at_ms, 'quote.expire',",
        replace: "world.sim.scheduler.schedule(expires_at_ms + 1, 'quote.expire',",
      },
      {
        file: 'fake-provider/resources/rfqs/model.ts',
        find: "quoteStatus(quote) === 'open' && world.sim.now_ms() >= quote.expires_at_ms",
        replace: "quoteStatus(quote) === 'open' && world.sim.now_ms() > quote.expires_at_ms",
      },
    ],
  },
  // Issue 28, second round: the remaining deadlines on their exact ticks, and credit holders.
  {
    id: 'zap-expiry-one-tick-late',
    area: 'zaps',
    summary: "a zap's expiry runs one tick after its expires_at_ms, so at the instant it is reached the zap still awaits its deposit",
    edits: [
      {
        file: ZAPS,
        find: "world.sim.scheduler.schedule(z.expires_at_ms, 'zap.expire',",
        replace: "world.sim.scheduler.schedule(z.expires_at_ms + 1, 'zap.expire',",
      },
    ],
  },
  {
    id: 'deposit-window-one-tick-late',
    area: 'deposits',
    summary: 'a deposit address is still monitored at the instant its window ends (a transfer landing then is detected)',
    edits: [
      {
        file: 'fake-provider/resources/deposits/addresses.ts',
        find: 'return world.sim.now_ms() < da.expires_at_ms;',
        replace: 'return world.sim.now_ms() <= da.expires_at_ms;',
      },
    ],
  },
  {
    id: 'retry-window-one-tick-short',
    area: 'webhooks',
    summary: 'webhook retries stop one tick short of the 72 h window: a retry due exactly at 72 h is never made',
    edits: [{ file: DELIVERY_MACHINE, find: RETRY_ALLOWED, replace: RETRY_ALLOWED.replace('<=', '<') }],
  },
  {
    id: 'failed-trade-keeps-credit-locked',
    area: 'credits',
    summary:
      'a failed trade keeps its source credit locked (amounts and status stay right: open, same atoms; every later spend answers credit_in_use)',
    edits: [
      {
        file: DRIVER,
        find: '  swap.next_due_ms = null;\n  releaseCredit(world, swap.credit_id, swap.id);',
        replace: "  swap.next_due_ms = null;\n  if (swap.kind === 'zap') releaseCredit(world, swap.credit_id, swap.id);",
      },
    ],
  },
  {
    id: 'deleted-org-deliveries-left-scheduled',
    area: 'webhooks',
    summary:
      "deleting an organization drops its webhooks' index before walking it, so their pending deliveries stay scheduled and the next attempt fails with a 500",
    edits: [
      {
        file: 'fake-provider/resources/webhooks/retention.ts',
        find: '    store.byId.delete(w.webhook_id);\n',
        replace: '    store.byId.delete(w.webhook_id);\n    store.byWebhook.delete(w.webhook_id);\n',
      },
    ],
  },
];
