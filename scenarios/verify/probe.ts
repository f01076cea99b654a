// The verifier's side of the probe contract: POST /probe/configure, GET /probe/state?account_id=, and the
// optional POST /probe/sync (an app that serves it catches up from GET /events when asked; one that answers
// 404 or 405 is given `quiescence_ms` of wall time instead). Every call has a wall-time bound.
import { shapeProblem, type ProbeState } from './compare.ts';

export class AppUnreachable extends Error {}

const TIMEOUT_MS = 30_000;

async function send(url: string, init: RequestInit = {}): Promise<{ status: number; body: unknown }> {
  let res: Response;
  try {
    res = await fetch(url, { ...init, signal: AbortSignal.timeout(TIMEOUT_MS) });
  } catch (err) {
    throw new AppUnreachable(
      `${init.method ?? 'GET'} ${url}: ${(err as Error).cause instanceof Error ? ((err as Error).cause as Error).message : (err as Error).message}`,
    );
  }
  const text = await res.text();
  let body: unknown = text;
  try {
    body = text.length > 0 ? JSON.parse(text) : undefined;
  } catch {
    /* keep the text */
  }
  return { status: res.status, body };
}

export async function configure(app_url: string, body: { base_url: string; api_key: string; webhook_secret: string }): Promise<void> {
  const r = await send(`${app_url}/probe/configure`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (r.status < 200 || r.status > 299)
    throw new AppUnreachable(`POST ${app_url}/probe/configure answered ${r.status} ${JSON.stringify(r.body)}`);
}

/** True when the app caught up on request; false when it does not serve /probe/sync. */
export async function sync(app_url: string): Promise<boolean> {
  const r = await send(`${app_url}/probe/sync`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  if (r.status === 404 || r.status === 405 || r.status === 501) return false;
  if (r.status < 200 || r.status > 299) throw new Error(`POST ${app_url}/probe/sync answered ${r.status} ${JSON.stringify(r.body)}`);
  return true;
}

export type StateReply = { ok: true; state: ProbeState } | { ok: false; problem: string };

export async function state(app_url: string, account_id: string): Promise<StateReply> {
  const r = await send(`${app_url}/probe/state?account_id=${encodeURIComponent(account_id)}`);
  if (r.status !== 200) return { ok: false, problem: `GET /probe/state answered ${r.status}` };
  const problem = shapeProblem(r.body);
  return problem === null ? { ok: true, state: r.body as ProbeState } : { ok: false, problem };
}
