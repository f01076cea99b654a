// The dashboard's HTTP client: every read and lever goes through the control plane (/_sim) or the API (/v1), with
// the control token or an organization's API key as the bearer. Keeps the credentials for the browser tab only.

export interface Reply<T = any> {
  status: number;
  body: T;
}

/** What the page signs in with: the control token (or none, on a loopback server without one), or one org's key. */
export interface Credentials {
  control_token: string | null;
  /** Organization mode: the page shows only what this key reads through /v1. */
  api_key: string | null;
}

const STORE = 'swapsim.ui.credentials';

/** From the URL fragment (`#token=T` or `#key=K`, never sent to a server), else the tab's session storage. */
export function loadCredentials(): Credentials {
  const hash = new URLSearchParams(location.hash.slice(1));
  if (hash.has('token') || hash.has('key')) {
    const c = { control_token: hash.get('token'), api_key: hash.get('key') };
    saveCredentials(c);
    history.replaceState(null, '', location.pathname);
    return c;
  }
  try {
    const saved = JSON.parse(sessionStorage.getItem(STORE) ?? 'null') as Credentials | null;
    if (saved) return saved;
  } catch {
    // A malformed entry is as good as none.
  }
  return { control_token: null, api_key: null };
}

export function saveCredentials(c: Credentials): void {
  sessionStorage.setItem(STORE, JSON.stringify(c));
}

export class Client {
  constructor(public credentials: Credentials) {}

  /** A control-plane call (`/_sim` + path) with the control token. */
  sim<T = any>(method: string, path: string, body?: unknown): Promise<Reply<T>> {
    return this.send(method, `/_sim${path}`, body, this.credentials.control_token);
  }

  /** An API call (`/v1` + path) with an organization's key. */
  v1<T = any>(method: string, path: string, api_key: string, body?: unknown): Promise<Reply<T>> {
    return this.send(method, `/v1${path}`, body, api_key);
  }

  private async send<T>(method: string, url: string, body: unknown, bearer: string | null): Promise<Reply<T>> {
    const headers: Record<string, string> = {};
    if (bearer) headers.authorization = `Bearer ${bearer}`;
    let text: string | undefined;
    if (body !== undefined) {
      headers['content-type'] = 'application/json';
      // A string is sent as typed (the fault form): the server, not the page, judges it.
      text = typeof body === 'string' ? body : JSON.stringify(body);
    }
    const res = await fetch(url, { method, headers, body: text, cache: 'no-store' });
    const raw = await res.text();
    let parsed: unknown = null;
    try {
      parsed = raw ? JSON.parse(raw) : null;
    } catch {
      parsed = { error: { code: 'not_json', message: raw.slice(0, 200) } };
    }
    return { status: res.status, body: parsed as T };
  }
}

/** The error envelope of a failed reply, as one line: `404 not_found: no organization org_x (param organization_id)`. */
export function errorLine(r: Reply): string {
  const e = (r.body as { error?: { code?: string; message?: string; param?: string } } | null)?.error;
  if (!e) return `HTTP ${r.status}`;
  return `${r.status} ${e.code ?? ''}: ${e.message ?? ''}${e.param ? ` (param ${e.param})` : ''}`;
}
