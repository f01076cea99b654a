// Shared by the twin tests: what each example twin's failure must say (its own reason, in the first line), which
// spec coverage items expose it, and the check itself. The suites run, for each twin, the one run the seed's plan
// gives a coverage item that exposes it (coverage.ts: every item is in exactly one run of every 10, whatever the
// seed), and require that run to catch it for its reason; `full` also shrinks the case to at most 5 steps and
// replays it 5 times word for word. Caught within 10 runs at seeds 1–5 (the measure) is
// `npm run bench:verify -- --skip-reference --skip-slow --seeds 1-5`, which runs the first 10 runs of each seed.
import { expect } from 'vitest';
import type { Bug } from '../examples/reference-integrator/bugs.ts';
import { startIntegrator } from '../examples/reference-integrator/app.ts';
import { ITEM_IDS, PLAN_RUNS, plannedItems } from './coverage.ts';
import { verify, type VerifyFailure, type VerifyReport } from './verify.ts';

const SEED = 1;

/**
 * Per twin: the spec coverage items whose run must expose it (any one of them does). Written from what each bug
 * gets wrong, not from where verify happened to catch it.
 */
const EXPOSED_BY: Record<Bug, readonly string[]> = {
  'no-signature-check': ['forged.wrong_secret', 'forged.tampered_body', 'forged.unsigned'],
  'no-dedupe': ['delivery.duplicate', 'delivery.concurrent_copies'],
  'status-follows-last-event': ['delivery.late_progress'],
  'no-feed-catch-up': ['delivery.outage_past_retry_window'],
  'orphan-as-failed': ['trade.reorg.out', 'trade.reorg.in', 'zap.reorg.out', 'zap.reorg.in'],
  'filled-as-settled': ['trade.failed.settlement_failed', 'zap.failed.settlement_failed'],
  // Every first delivery of every run meets it: the run that creates the first account does.
  'fails-then-applies': ['trade.settled'],
  'slow-handler': ['trade.settled', 'zap.settled'],
  'racy-dedupe': ['delivery.concurrent_copies'],
  'no-secret-grace': ['app.rotation'],
  'no-timestamp-check': ['timestamp.stale', 'timestamp.future'],
  'pending-counted-available': ['deposit.pending_probe', 'deposit.flagged_probe'],
  'flagged-deposit-credited': ['deposit.flagged_probe'],
  'cancel-failed-as-confirmed': ['cancel.failed.broadcast_failed', 'cancel.failed.confirmation_timeout'],
  'pending-settle-as-settled': [
    'trade.failed.settlement_timeout',
    'trade.failed.settlement_orphaned',
    'zap.failed.settlement_timeout',
    'zap.failed.settlement_orphaned',
  ],
  'recovery-claim-as-spent': ['recovery.failed'],
  'retries-429-at-once': ['api.429'],
  'latin1-body': ['payload.non_ascii'],
  'reserialized-hmac': ['payload.styled_body'],
  'reactivation-ignored': ['destination.reactivated'],
  // An outage leaves more than a page of events to catch up on.
  'first-page-only': ['delivery.outage_past_retry_window'],
  'restart-loses-state': ['app.restart'],
};

/** The first run of the seed whose plan holds an item that exposes the twin (always one of runs 1–10). */
export function plannedRun(bug: Bug, seed: number): number {
  for (let run = 1; run <= PLAN_RUNS; run++) if (plannedItems(seed, run).some((item) => EXPOSED_BY[bug].includes(item))) return run;
  throw new Error(
    `no run of seed ${seed} plans ${EXPOSED_BY[bug].join(' or ')}: ${EXPOSED_BY[bug].filter((i) => !ITEM_IDS.has(i)).join(', ')} unknown`,
  );
}

/** Per twin: the finding kind and what the first line (and the case) must show. */
const REASON: Record<Bug, (f: VerifyFailure) => void> = {
  'no-signature-check': (f) => expect(f.headline).toMatch(/^forged delivery accepted: .* was answered 2\d\d/),
  'no-dedupe': (f) => {
    expect(f.headline).toMatch(
      /^state mismatch(?: at a quiet point \([^)]*\))?: balance .* \(the app counts more than the provider holds\)$/,
    );
  },
  'status-follows-last-event': (f) => {
    expect(f.headline).toMatch(
      /^state mismatch(?: at a quiet point \([^)]*\))?: (trade|zap) \S+ status: app "(executing|filled|pending_settle)", provider "(settled|failed)"$/,
    );
    // A progress event that comes after the terminal one: held back, delayed, or dropped and retried later.
    expect(f.shrunk_steps.join('\n')).toMatch(/arrives 10 min late|arrive reversed|delay|hold back|drop/);
  },
  'no-feed-catch-up': (f) => {
    expect(f.headline).toMatch(/^state mismatch(?: at a quiet point \([^)]*\))?: .*(app null|the app counts less)/);
    expect(f.shrunk_steps.join('\n')).toMatch(/outage|drop/);
  },
  'orphan-as-failed': (f) => {
    expect(f.headline).toMatch(
      /^state mismatch(?: at a quiet point \([^)]*\))?: (trade|zap) \S+ status: app "failed", provider "settled"$/,
    );
    expect(f.shrunk_steps.join('\n')).toMatch(/leg is reorged/);
  },
  'filled-as-settled': (f) =>
    // Settled at fill: either the status is wrong (the settlement failed) or the spent credit was never subtracted.
    expect(f.headline).toMatch(
      /^state mismatch(?: at a quiet point \([^)]*\))?: ((trade|zap) \S+ status: app "settled", provider "failed"|balance .* \(the app counts more than the provider holds\))$/,
    ),
  'fails-then-applies': (f) => expect(f.headline).toMatch(/^a correctly signed delivery of \S+ \(\S+\) was answered 500/),
  'slow-handler': (f) => expect(f.headline).toMatch(/^handler exceeded 2 s on event \S+ \((trade|zap)\.settled\) without answering/),
  'racy-dedupe': (f) => {
    expect(f.headline).toMatch(
      /^state mismatch(?: at a quiet point \([^)]*\))?: balance .* \(the app counts more than the provider holds\)$/,
    );
    // Two copies at once: verify's concurrent copies, or the provider's duplicate (both copies leave together).
    expect(f.shrunk_steps.join('\n')).toMatch(/two concurrent copies|duplicate/);
  },
  'no-secret-grace': (f) =>
    expect(f.headline).toMatch(/^a delivery signed with the previous secret just after a rotation \(step \d+\) was answered 401/),
  'no-timestamp-check': (f) =>
    expect(f.headline).toMatch(
      /^a correctly signed delivery with a Svc-Timestamp 10 min (old|in the future).* was answered 2\d\d: the spec recommends rejecting/,
    ),
  'pending-counted-available': (f) => {
    expect(f.headline).toMatch(/^state mismatch.*: balance .* \(the app counts more than the provider holds\)$/);
    // Detected but never credited: held, flagged, or a zap's deposit (spent by the zap, never a credit of the account's).
    expect(f.shrunk_steps.join('\n')).toMatch(/stays pending|flags|zap funded by a deposit/);
  },
  'flagged-deposit-credited': (f) => {
    expect(f.headline).toMatch(/^state mismatch.*: balance .* \(the app counts more than the provider holds\)$/);
    expect(f.shrunk_steps.join('\n')).toMatch(/flags/);
  },
  'cancel-failed-as-confirmed': (f) =>
    expect(f.headline).toMatch(/^state mismatch.*: cancel \S+ status: app "confirmed", provider "failed"$/),
  'pending-settle-as-settled': (f) => {
    expect(f.headline).toMatch(/^state mismatch.*: (trade|zap) \S+ status: app "settled", provider "failed"$/);
    expect(f.shrunk_steps.join('\n')).toMatch(/fails with (settlement_timeout|settlement_orphaned)/);
  },
  'recovery-claim-as-spent': (f) => {
    expect(f.headline).toMatch(/^state mismatch.*: balance .* \(the app counts less than the provider holds\)$/);
    expect(f.shrunk_steps.join('\n')).toMatch(/the payout fails/);
  },
  'retries-429-at-once': (f) => expect(f.headline).toMatch(/^client conduct: retry_after_ignored: /),
  'latin1-body': (f) => {
    expect(f.headline).toMatch(/^a correctly signed delivery of \S+ \(account\.created\) was answered 401/);
    expect(f.shrunk_steps.join('\n')).toMatch(/non-ASCII/);
  },
  'reserialized-hmac': (f) => {
    expect(f.headline).toMatch(/^a correctly signed delivery of \S+ \(\S+\) was answered 401/);
    expect(f.shrunk_steps.join('\n')).toMatch(/delivery bodies are written/);
  },
  'reactivation-ignored': (f) => {
    expect(f.headline).toMatch(/^state mismatch.*: destination \S+ suspended: app true, provider false$/);
    expect(f.shrunk_steps.join('\n')).toMatch(/reactivates it/);
  },
  // Both are the one mistake: the events past the first page are never read, and the top is read again while has_more said more.
  'first-page-only': (f) => expect(f.headline).toMatch(/^(client conduct: ignored_has_more: |state mismatch)/),
  'restart-loses-state': (f) => {
    expect(f.headline).toMatch(/^state mismatch(?: at a quiet point \([^)]*\))?: .*(app null|the app counts less)/);
    // A rotation reaches the app as a configure with the same provider: a restart, as far as the app can tell.
    expect(f.shrunk_steps.join('\n')).toMatch(/the app restarts|the app configured with the new one/);
  },
};

/** The slow twin sleeps 15 s; a 2 s latency limit finds it as surely as the default 8 s, in a quarter of the time. */
const optionsFor = (bug: Bug) => (bug === 'slow-handler' ? { latency_limit_ms: 2_000 } : {});

/**
 * The run the plan gives the twin's exposing item, alone, must catch it for its reason. `full`: the first 10 runs
 * at the seed instead (caught within them), the case shrunk to at most 5 steps and replayed 5 times (about 30–90 s
 * a twin on 2 busy cores, so the suites do it for one twin per kind of finding and `npm run bench:verify` for all).
 */
export async function checkTwin(bug: Bug, full = false): Promise<void> {
  const app = await startIntegrator({ bugs: [bug] });
  try {
    const run = plannedRun(bug, SEED);
    const r: VerifyReport = full
      ? await verify({ app_url: app.url, runs: 10, seed: SEED, shrink_time_limit_ms: 60_000, ...optionsFor(bug) })
      : await verify({ app_url: app.url, run, seed: SEED, ...optionsFor(bug) });
    expect(
      r.failure,
      full
        ? `${bug} was not caught in ${r.runs} runs`
        : `${bug} was not caught by run ${run}, which the plan gives ${EXPOSED_BY[bug].join(' or ')}`,
    ).toBeDefined();
    const f = r.failure!;
    expect(r.runs_to_catch).toBeLessThanOrEqual(10);
    REASON[bug](f);
    if (!full) {
      console.log(`${bug}: caught by run ${run} (${f.original_steps} steps, unshrunk): ${f.headline}`);
      return;
    }
    expect(f.shrunk_steps.length).toBeLessThanOrEqual(5);
    expect(f.replay_command).toBe(`npx swapsim verify --app ${app.url} --seed ${SEED} --case ${f.case_token}`);
    // A conduct finding is about the app's requests, not an event: its request ids stand where a delivery log would.
    if (f.kind === 'conduct') expect(f.headline).toMatch(/\(requests req_\S+/);
    else expect(f.delivery_log.length).toBeGreaterThan(0);
    // The case replays on the same provider seed: the same verdict, word for word, every time.
    for (let i = 0; i < 5; i++) {
      const again = await verify({ app_url: app.url, seed: SEED, case: f.case_token, ...optionsFor(bug) });
      expect(again.failure?.headline, `replay ${i + 1} of ${bug}`).toBe(f.headline);
      expect(again.failure?.shrunk_steps).toEqual(f.shrunk_steps);
    }
    console.log(
      `${bug}: caught at run ${r.runs_to_catch}, ${f.shrunk_steps.length} steps (from ${f.original_steps}, ${r.num_shrinks} shrink attempts), 5/5 replays: ${f.headline}`,
    );
  } finally {
    await app.close();
  }
}
