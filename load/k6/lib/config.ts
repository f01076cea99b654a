// Configuration of the k6 scripts, read once from __ENV with defaults that match the spec (its Limits
// section) and `npm start` (127.0.0.1:4010, key sk_sim_demo). Pure functions over an env map, so the
// same code runs under real k6 and under the test double.

export type Env = { [name: string]: string | undefined };

export const SPEC_LIMITS = { reads: 100, writes: 20, indicative_rfqs: 10, firm_rfqs: 5 } as const;
export type LimitClass = keyof typeof SPEC_LIMITS;

export function envString(env: Env, name: string, fallback: string): string {
  const v = env[name];
  return v === undefined || v === '' ? fallback : v;
}

export function envNumber(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n)) throw new Error(`${name} must be a number, got ${JSON.stringify(raw)}`);
  return n;
}

/** `true`/`1`/`yes` or `false`/`0`/`no`; undefined when unset (so callers can tell "unset" apart). */
export function envBool(env: Env, name: string): boolean | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  if (/^(true|1|yes|on)$/i.test(raw)) return true;
  if (/^(false|0|no|off)$/i.test(raw)) return false;
  throw new Error(`${name} must be true or false, got ${JSON.stringify(raw)}`);
}

export function envList(env: Env, name: string): string[] {
  return envString(env, name, '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

/** A k6 duration ("30s", "1m30s", "250ms", or plain seconds) in milliseconds. */
export function durationMs(text: string): number {
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text) * 1000;
  const units: { [u: string]: number } = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
  let total = 0;
  let rest = text;
  const part = /^(\d+(?:\.\d+)?)(ms|s|m|h)/;
  while (rest.length > 0) {
    const m = part.exec(rest);
    if (!m) throw new Error(`not a duration: ${JSON.stringify(text)}`);
    total += Number(m[1]) * units[m[2]!]!;
    rest = rest.slice(m[0].length);
  }
  return total;
}

/** Milliseconds back to a k6 duration string (whole milliseconds). */
export function msDuration(ms: number): string {
  return `${Math.round(ms)}ms`;
}

/** Where summaries go unless SUMMARY_DIR says otherwise, when it exists where k6 runs: a folder in the repo
 *  whose contents git ignores. Elsewhere the default is the folder k6 runs in (k6 creates no folder). */
const DEFAULT_SUMMARY_DIR = 'load/results';

/** Whether `path` (absolute) is an existing folder: k6's init-context `open()` refuses folders by name. */
export type DirProbe = (path: string) => boolean | null;

/** k6's `open()` (init context only) as a folder probe; null where there is no `open` (the test double). */
export function openDirProbe(): DirProbe {
  const o = (globalThis as { open?: (p: string) => unknown }).open;
  if (typeof o !== 'function') return () => null;
  return (path) => {
    try {
      o(path);
      return false; // a file
    } catch (e) {
      return /directories/.test(String(e)) ? true : /no such file|not found|cannot find/i.test(String(e)) ? false : null;
    }
  };
}

/**
 * The summary folder, resolved where k6 runs (PWD, which `k6 run` passes in __ENV): SUMMARY_DIR when given
 * (an error when it does not exist: k6 would only log that it could not write there, and exit 0);
 * else `load/results` when it exists (the repo root), else the folder k6 runs in. Without PWD (or without
 * `open`) nothing can be checked: SUMMARY_DIR, else `load/results`, as given.
 */
function resolveSummaryDir(env: Env, isDir: DirProbe): { dir: string; error: string | null } {
  const given = envString(env, 'SUMMARY_DIR', '').replace(/(.)\/$/, '$1');
  const pwd = envString(env, 'PWD', '');
  const abs = (d: string) => (d.charAt(0) === '/' ? d : `${pwd.replace(/\/$/, '')}/${d}`);
  if (given !== '') {
    if (pwd === '' && given.charAt(0) !== '/') return { dir: given, error: null };
    const found = isDir(abs(given));
    if (found === false)
      return {
        dir: given,
        error: `SUMMARY_DIR ${given} is not a folder${given.charAt(0) === '/' ? '' : ` under ${pwd}`} (k6 creates none): create it, or leave SUMMARY_DIR unset to write where k6 runs`,
      };
    return { dir: given, error: null };
  }
  if (pwd === '') return { dir: DEFAULT_SUMMARY_DIR, error: null };
  const repo = isDir(abs(DEFAULT_SUMMARY_DIR));
  return { dir: repo === false ? '.' : DEFAULT_SUMMARY_DIR, error: null };
}

export interface CommonConfig {
  base_url: string;
  /** The control plane, or null when disabled (`CONTROL_URL=off`): steps that need it are skipped. */
  control_url: string | null;
  api_key: string;
  api_keys: string[];
  /** Where handleSummary writes `<script>-summary.json` and `<script>-junit.xml`. */
  summary_dir: string;
  /** Why summary_dir cannot be written to, or null (then the configuration is unusable: red, exit 107). */
  summary_error: string | null;
  /** RUN_ID, or '' when unset: setup then draws one, since each VU evaluates the init context apart. */
  run_id: string;
  /** CONTROL_TOKEN: sent as a bearer token to a control plane started with `--control-token`. */
  control_token: string;
}

/** BASE_URL's origin + `/_sim`: where `npm start` serves the control plane beside `/v1`. */
function defaultControlUrl(base_url: string): string {
  return `${base_url.replace(/\/v1\/?$/, '')}/_sim`;
}

export function commonConfig(env: Env, defaults: { control: boolean } = { control: true }, isDir: DirProbe = () => null): CommonConfig {
  const base_url = envString(env, 'BASE_URL', 'http://127.0.0.1:4010/v1').replace(/\/$/, '');
  const controlRaw = envString(env, 'CONTROL_URL', defaults.control ? defaultControlUrl(base_url) : 'off');
  const control_url = /^(off|none|false|0)$/i.test(controlRaw) ? null : controlRaw.replace(/\/$/, '');
  return {
    base_url,
    control_url,
    api_key: envString(env, 'API_KEY', 'sk_sim_demo'),
    api_keys: envList(env, 'API_KEYS'),
    ...summaryDirOf(env, isDir),
    run_id: envString(env, 'RUN_ID', ''),
    control_token: envString(env, 'CONTROL_TOKEN', ''),
  };
}

function summaryDirOf(env: Env, isDir: DirProbe): { summary_dir: string; summary_error: string | null } {
  const r = resolveSummaryDir(env, isDir);
  return { summary_dir: r.dir, summary_error: r.error };
}
