// The integrator's client for the provider's /v1: bearer auth, lists followed through next_cursor, and
// polite retries (429 honours Retry-After, 5xx and lost answers back off) so its own conduct stays clean.
export interface ProviderConfig {
  base_url: string;
  api_key: string;
}

class ProviderError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
    what: string,
  ) {
    super(`${what}: ${status} ${JSON.stringify(body)}`);
  }
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Per provider and key: no request before this wall time. A 429's Retry-After binds the client, not the one call
 * that met it: a call that gave up on its retries must not let the next call go out before the time is up.
 */
const notBefore_ms = new Map<string, number>();

export async function get<T = any>(cfg: ProviderConfig, path: string, opts: { ignore_retry_after?: boolean } = {}): Promise<T> {
  const client = `${cfg.base_url} ${cfg.api_key}`;
  for (let attempt = 0; ; attempt++) {
    const wait_ms = (notBefore_ms.get(client) ?? 0) - Date.now();
    if (wait_ms > 0 && !opts.ignore_retry_after) await sleep(wait_ms);
    let res: Response;
    try {
      res = await fetch(cfg.base_url + path, { headers: { authorization: `Bearer ${cfg.api_key}` }, signal: AbortSignal.timeout(10_000) });
    } catch (err) {
      // A reset connection or a lost answer: a GET changes nothing, so it is safe to send again after a pause.
      if (attempt >= 4) throw err;
      await sleep(100 * 2 ** attempt);
      continue;
    }
    const text = await res.text();
    const body = text.length > 0 ? JSON.parse(text) : undefined;
    if (res.ok) return body as T;
    const retry_after_s = Number(res.headers.get('retry-after'));
    if (res.status === 429 && Number.isFinite(retry_after_s) && retry_after_s > 0)
      notBefore_ms.set(client, Date.now() + retry_after_s * 1000);
    const retryable = res.status === 429 || res.status >= 500;
    if (!retryable || attempt >= 4) throw new ProviderError(res.status, body, `GET ${path}`);
    // The retries-429-at-once variant goes again at once, whatever Retry-After says.
    await sleep(
      opts.ignore_retry_after ? 0 : Number.isFinite(retry_after_s) && retry_after_s > 0 ? retry_after_s * 1000 : 100 * 2 ** attempt,
    );
  }
}

/** Every item of a list, following next_cursor (never re-reading from the top while has_more). */
export async function getAll<T>(
  cfg: ProviderConfig,
  path: string,
  field: string,
  opts: { ignore_retry_after?: boolean } = {},
): Promise<T[]> {
  const out: T[] = [];
  let cursor: string | null = null;
  do {
    const sep = path.includes('?') ? '&' : '?';
    const page: Record<string, unknown> = await get(
      cfg,
      `${path}${sep}limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      opts,
    );
    out.push(...(page[field] as T[]));
    cursor = page.has_more ? (page.next_cursor as string) : null;
  } while (cursor);
  return out;
}
