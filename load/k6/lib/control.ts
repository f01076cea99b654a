// The swapsim control plane (`/_sim`) as the scripts use it: probing whether it is reachable, creating
// organizations (fresh API keys with the spec's limits), moving time (advance a virtual clock, sleep on
// a realtime one), landing deposits. Against a staging proxy there is no control plane: callers skip.
import http from 'k6/http';
import { sleep } from 'k6';
import { json } from './api.ts';

export interface ControlInfo {
  url: string;
  /** CONTROL_TOKEN ('' when none): a control plane started with `--control-token` requires it. */
  token: string;
  /** `virtual`: nothing moves until advanced, so waits advance the clock instead of sleeping. */
  clock_mode: string;
  /** The active profile's `rate_limit_retry_after` (whether 429s carry Retry-After). */
  retry_after: boolean | null;
}

function controlCall(ctl: { url: string; token: string }, method: string, path: string, body?: unknown) {
  const headers: { [h: string]: string } = { 'Content-Type': 'application/json' };
  if (ctl.token !== '') headers.Authorization = `Bearer ${ctl.token}`;
  const params = { headers, tags: { name: `/_sim${path.replace(/\?.*$/, '')}` }, timeout: '10s' };
  return http.request(method, ctl.url + path, body === undefined ? null : JSON.stringify(body), params);
}

/**
 * The control plane's clock and profile, or null when it does not answer like swapsim's (a staging proxy).
 * A swapsim control plane that refuses this client (started with `--control-token`, or reached from
 * another host) is an error, not a reason to fall back to other keys silently.
 */
export function probeControl(url: string | null, token = ''): ControlInfo | null {
  if (url === null) return null;
  const clock = controlCall({ url, token }, 'GET', '/clock');
  const refused = (clock.status === 401 || clock.status === 403) && /control plane/.test(String(json(clock)?.error?.message ?? ''));
  if (refused) {
    const why = `${clock.status} ${json(clock).error.message}`;
    throw new Error(
      `the control plane at ${url} refuses this client (${why}): ${token === '' ? "set CONTROL_TOKEN to the server's --control-token" : 'CONTROL_TOKEN is not its token'}, or CONTROL_URL=off to run without it`,
    );
  }
  const mode = clock.status === 200 ? json(clock)?.clock?.mode : undefined;
  if (typeof mode !== 'string') return null;
  const profile = controlCall({ url, token }, 'GET', '/profile');
  const ra = profile.status === 200 ? json(profile)?.profile?.rate_limit_retry_after : undefined;
  return { url, token, clock_mode: mode, retry_after: typeof ra === 'boolean' ? ra : null };
}

export function mustControl(ctl: ControlInfo, method: string, path: string, body?: unknown): any {
  const res = controlCall(ctl, method, path, body);
  if (res.status !== 200) throw new Error(`control ${method} ${path}: ${res.status} ${String(res.body).slice(0, 300)}`);
  return json(res);
}

/**
 * An organization with these per-key limits (omitted classes keep the spec's); returns its API key. With
 * `api_key` (a split run: every instance names the same key) the first instance creates it and the others
 * find it, checking that its limits are the ones asked for.
 */
export function createOrg(
  ctl: ControlInfo,
  rate_limits?: { [cls: string]: number },
  api_key?: string,
  o: { must_be_new?: boolean } = {},
): string {
  const body: { [k: string]: unknown } = rate_limits === undefined ? {} : { rate_limits };
  if (api_key === undefined) return mustControl(ctl, 'POST', '/organizations', body).organization.api_key;
  body.api_key = api_key;
  const res = controlCall(ctl, 'POST', '/organizations', body);
  if (res.status === 200) return json(res).organization.api_key;
  if (res.status !== 400 || json(res)?.error?.param !== 'api_key')
    throw new Error(`control POST /organizations: ${res.status} ${String(res.body).slice(0, 300)}`);
  if (o.must_be_new) throw new Error(`control POST /organizations: ${api_key} is taken`);
  const org = (mustControl(ctl, 'GET', '/organizations').organizations as any[]).find(
    (o) => (o.api_keys as string[]).indexOf(api_key) >= 0,
  );
  if (!org) throw new Error(`control POST /organizations: ${api_key.slice(0, 12)}… is taken, yet no organization lists it`);
  for (const cls of Object.keys(rate_limits || {})) {
    if (org.rate_limits[cls] !== rate_limits![cls])
      throw new Error(
        `the organization of ${api_key.slice(0, 12)}… has ${cls} ${org.rate_limits[cls]}/s, not ${rate_limits![cls]}: another run used this RUN_ID`,
      );
  }
  return api_key;
}

/** Lets `ms` of sim time pass: advances a virtual clock, sleeps through a realtime one. */
export function simWait(ctl: ControlInfo | null, ms: number): void {
  if (ctl !== null && ctl.clock_mode === 'virtual') mustControl(ctl, 'POST', '/clock/advance', { ms: Math.max(0, Math.round(ms)) });
  else sleep(ms / 1000);
}

/** Polls `probe` (after a wait each time) until it returns a value; throws after `attempts`. */
export function waitFor<T>(
  ctl: ControlInfo | null,
  what: string,
  step_ms: number,
  attempts: number,
  probe: (attempt: number) => T | null,
): T {
  for (let i = 0; i < attempts; i++) {
    const v = probe(i);
    if (v !== null) return v;
    simWait(ctl, step_ms);
  }
  throw new Error(`gave up waiting for ${what}`);
}

/** An on-chain transfer lands on the deposit address (control plane only). */
export function landDeposit(ctl: ControlInfo, deposit_address_id: string, atoms: string): string {
  return mustControl(ctl, 'POST', '/deposits', { deposit_address_id, atoms }).deposit.tx_hash;
}
