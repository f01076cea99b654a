// Shared by the twin tests: what each example twin's failure must say (its own reason, in the first line),
// and the check itself: caught within 10 runs at seed 1, a case of at most 5 steps, replayed 5 times with
// the same verdict word for word.
import { expect } from 'vitest';
import type { Bug } from '../examples/reference-integrator/bugs.ts';
import { startIntegrator } from '../examples/reference-integrator/app.ts';
import { verify, type VerifyFailure, type VerifyReport } from './verify.ts';

export const SEED = 1;

/** Per twin: the finding kind and what the first line (and the case) must show. */
export const REASON: Record<Bug, (f: VerifyFailure) => void> = {
  'no-signature-check': (f) => expect(f.headline).toMatch(/^forged delivery accepted: .* was answered 2\d\d/),
  'no-dedupe': (f) => {
    expect(f.headline).toMatch(/^state mismatch(?: at a quiet point \([^)]*\))?: balance .* \(the app counts more than the provider holds\)$/);
  },
  'status-follows-last-event': (f) => {
    expect(f.headline).toMatch(/^state mismatch(?: at a quiet point \([^)]*\))?: (trade|zap) \S+ status: app "(executing|filled|pending_settle)", provider "(settled|failed)"$/);
    // A progress event that comes after the terminal one: held back, delayed, or dropped and retried later.
    expect(f.shrunk_steps.join('\n')).toMatch(/arrives 10 min late|arrive reversed|delay|hold back|drop/);
  },
  'no-feed-catch-up': (f) => {
    expect(f.headline).toMatch(/^state mismatch(?: at a quiet point \([^)]*\))?: .*(app null|the app counts less)/);
    expect(f.shrunk_steps.join('\n')).toMatch(/outage|drop/);
  },
  'orphan-as-failed': (f) => {
    expect(f.headline).toMatch(/^state mismatch(?: at a quiet point \([^)]*\))?: (trade|zap) \S+ status: app "failed", provider "settled"$/);
    expect(f.shrunk_steps.join('\n')).toMatch(/leg is reorged/);
  },
  'filled-as-settled': (f) =>
    // Settled at fill: either the status is wrong (the settlement failed) or the spent credit was never subtracted.
    expect(f.headline).toMatch(/^state mismatch(?: at a quiet point \([^)]*\))?: ((trade|zap) \S+ status: app "settled", provider "failed"|balance .* \(the app counts more than the provider holds\))$/),
  'fails-then-applies': (f) => expect(f.headline).toMatch(/^a correctly signed delivery of \S+ \(\S+\) was answered 500/),
  'slow-handler': (f) => expect(f.headline).toMatch(/^handler exceeded 2 s on event \S+ \((trade|zap)\.settled\) without answering/),
  'racy-dedupe': (f) => {
    expect(f.headline).toMatch(/^state mismatch(?: at a quiet point \([^)]*\))?: balance .* \(the app counts more than the provider holds\)$/);
    // Two copies at once: verify's concurrent copies, or the provider's duplicate (both copies leave together).
    expect(f.shrunk_steps.join('\n')).toMatch(/two concurrent copies|duplicate/);
  },
  'no-secret-grace': (f) => expect(f.headline).toMatch(/^a delivery signed with the previous secret just after a rotation \(step \d+\) was answered 401/),
  'no-timestamp-check': (f) => expect(f.headline).toMatch(/^a correctly signed delivery with a Svc-Timestamp 10 min (old|in the future).* was answered 2\d\d: the spec recommends rejecting/),
  'pending-counted-available': (f) => {
    expect(f.headline).toMatch(/^state mismatch.*: balance .* \(the app counts more than the provider holds\)$/);
    // Detected but never credited: held, flagged, or a zap's deposit (spent by the zap, never a credit of the account's).
    expect(f.shrunk_steps.join('\n')).toMatch(/stays pending|flags|zap funded by a deposit/);
  },
  'flagged-deposit-credited': (f) => {
    expect(f.headline).toMatch(/^state mismatch.*: balance .* \(the app counts more than the provider holds\)$/);
    expect(f.shrunk_steps.join('\n')).toMatch(/flags/);
  },
  'cancel-failed-as-confirmed': (f) => expect(f.headline).toMatch(/^state mismatch.*: cancel \S+ status: app "confirmed", provider "failed"$/),
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
 * `full`: also shrunk to at most 5 steps and replayed 5 times (about 30–90 s a twin on 2 busy cores, so the suites
 * run it for a few twins and `npm run bench:verify` for all of them); otherwise caught as found (no shrinking).
 */
export async function checkTwin(bug: Bug, full = false): Promise<void> {
  const app = await startIntegrator({ bugs: [bug] });
  try {
    const r: VerifyReport = await verify({ app_url: app.url, runs: 10, seed: SEED, shrink_time_limit_ms: full ? 60_000 : 0, ...optionsFor(bug) });
    expect(r.failure, `${bug} was not caught in ${r.runs} runs`).toBeDefined();
    const f = r.failure!;
    expect(r.runs_to_catch).toBeLessThanOrEqual(10);
    REASON[bug](f);
    if (!full) {
      console.log(`${bug}: caught at run ${r.runs_to_catch} (${f.original_steps} steps, unshrunk): ${f.headline}`);
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
    console.log(`${bug}: caught at run ${r.runs_to_catch}, ${f.shrunk_steps.length} steps (from ${f.original_steps}, ${r.num_shrinks} shrink attempts), 5/5 replays: ${f.headline}`);
  } finally {
    await app.close();
  }
}
