// The reference integrator's HTTP side (express): the probe contract of `swapsim verify` (POST
// /probe/configure, GET /probe/state, and the optional POST /probe/sync), and the webhook endpoint, which
// checks each signature over the raw body before anything is parsed (the previous secret too, for 5 minutes
// after a rotation) and refuses a Svc-Timestamp more than 5 minutes old or in the future. Every event, from a webhook or from the feed, goes through one queue, so two copies of
// an event never race past the dedupe check. A configure naming another provider starts a fresh ledger.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type Request, type Response } from 'express';
import type { Bug } from './bugs.ts';
import { createLedger, type Envelope } from './ledger.ts';
import { get, type ProviderConfig } from './provider.ts';

export interface IntegratorOptions {
  bugs?: Iterable<Bug>;
  /** Read GET /events every this many wall ms (0: only on configure and on POST /probe/sync). */
  poll_ms?: number;
  /** Brand part of the webhook header names (`Svc-Signature`, …). */
  header_prefix?: string;
  webhook_path?: string;
  /**
   * How the webhook endpoint uses a delivery it accepted (signature and timestamp checked first, in every style).
   * The correct-but-unusual consumers `swapsim verify` must pass as it passes the default:
   * - `apply` (default): applies the event, then answers 200.
   * - `feed-only`: answers 200 and applies nothing; the feed (GET /events on POST /probe/sync) is its only source.
   * - `nudge`: answers 200, then reads the feed from its last cursor (a delivery is only a nudge to catch up).
   * - `deferred`: answers 202 at once and applies the event `defer_ms` later; POST /probe/sync waits for those.
   */
  style?: IntegratorStyle;
  /** `deferred` style: how long after its 202 an event is applied (default 200 ms). */
  defer_ms?: number;
  /** Take this many wall ms over every webhook before handling it (0: at once): a slow but correct receiver. */
  answer_delay_ms?: number;
}

export const INTEGRATOR_STYLES = ['apply', 'feed-only', 'nudge', 'deferred'] as const;
export type IntegratorStyle = (typeof INTEGRATOR_STYLES)[number];

interface Config extends ProviderConfig {
  webhook_secret: string;
  /** The secret before the last rotation, accepted until `previous_until_ms` (wall): the spec's grace of at least 5 min. */
  previous_secret: string | null;
  previous_until_ms: number;
}

/** How long a rotated-out secret still verifies deliveries (the spec: at least 5 minutes). */
const SECRET_GRACE_MS = 5 * 60_000;
/** The spec's recommendation: reject a Svc-Timestamp more than 5 minutes old or in the future (a little clock skew allowed ahead). */
const TIMESTAMP_TOLERANCE_MS = 5 * 60_000;
const FUTURE_SKEW_MS = 30_000;

/** A Svc-Timestamp (ms since epoch) this receiver accepts: not older than 5 minutes, not ahead of its clock. */
export function freshTimestamp(timestamp: string, now_ms: number): boolean {
  if (!/^[0-9]{1,16}$/.test(timestamp)) return false;
  const t = Number(timestamp);
  return t >= now_ms - TIMESTAMP_TOLERANCE_MS && t <= now_ms + FUTURE_SKEW_MS;
}
const SLOW_HANDLER_MS = 15_000;

/** The spec's scheme: `v1=` + hex HMAC-SHA256 with the secret over `<timestamp>.<raw body>`, compared in constant time. */
export function validSignature(secret: string, timestamp: string, raw: Buffer, header: string): boolean {
  const expected = Buffer.from(`v1=${createHmac('sha256', secret).update(`${timestamp}.`).update(raw).digest('hex')}`);
  const given = Buffer.from(header);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** The reserialized-hmac variant's bytes: the body parsed and written again (the original bytes when it is not JSON). */
function reserialized(body: Buffer): Buffer {
  try {
    return Buffer.from(JSON.stringify(JSON.parse(body.toString('utf8'))), 'utf8');
  } catch {
    return body;
  }
}

export function createIntegratorApp(options: IntegratorOptions = {}) {
  const bugs = new Set(options.bugs ?? []);
  const prefix = (options.header_prefix ?? 'Svc').toLowerCase();
  let config: Config | null = null;
  /** Where the next feed read starts: the last next_cursor followed (the tail page is re-read; dedupe absorbs it). */
  let cursor: string | null = null;
  let ledger = createLedger(() => config!, bugs);
  /** The restart-loses-state variant's "persisted" feed position: events at or before it are skipped after a restart. */
  let skip_until_ms = 0;

  const style: IntegratorStyle = options.style ?? 'apply';
  /** Deferred applies not yet done (`deferred` style): a sync waits for them before it reads the feed. */
  const deferred = new Set<Promise<unknown>>();
  const answerLate = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, options.answer_delay_ms ?? 0));

  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T>(work: () => Promise<T>): Promise<T> => {
    const run = queue.then(work);
    queue = run.catch(() => undefined);
    return run;
  };

  /** Reads the feed from the cursor to its end, applying each event in order. */
  async function catchUp(): Promise<number> {
    if (config === null || bugs.has('no-feed-catch-up')) return 0;
    let applied = 0;
    const first_page_only = bugs.has('first-page-only');
    if (first_page_only) cursor = null;
    const limit = first_page_only ? 20 : 100;
    for (;;) {
      const page = await get<{ events: Envelope[]; has_more: boolean; next_cursor: string | null }>(
        config,
        `/events?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        { ignore_retry_after: bugs.has('retries-429-at-once') },
      );
      for (const event of page.events) if (event.created_at_ms > skip_until_ms) await ledger.apply(event);
      applied += page.events.length;
      if (!page.has_more || page.next_cursor === null || first_page_only) return applied;
      cursor = page.next_cursor;
    }
  }

  const app = express();
  app.disable('x-powered-by');

  app.post('/probe/configure', express.json(), async (req: Request, res: Response) => {
    const { base_url, api_key, webhook_secret } = req.body ?? {};
    if (typeof base_url !== 'string' || typeof api_key !== 'string' || typeof webhook_secret !== 'string') {
      res.status(400).json({ error: 'base_url, api_key and webhook_secret are required strings' });
      return;
    }
    await serial(async () => {
      const url = base_url.replace(/\/$/, '');
      // Another provider (or another key) is another world: its feed, accounts and event ids start afresh
      // (swapsim verify gives each run its own provider, and a replayed run reuses the original's ids).
      if (config === null || config.base_url !== url || config.api_key !== api_key) {
        cursor = null;
        skip_until_ms = 0;
        ledger = createLedger(() => config!, bugs);
      } else if (bugs.has('restart-loses-state')) {
        // A restart: memory is gone, the feed position is not.
        skip_until_ms = ledger.newest_ms();
        ledger = createLedger(() => config!, bugs);
      }
      const rotated = config !== null && config.base_url === url && config.webhook_secret !== webhook_secret;
      const keep = rotated && !bugs.has('no-secret-grace');
      config = {
        base_url: url,
        api_key,
        webhook_secret,
        previous_secret: keep ? config!.webhook_secret : (config?.previous_secret ?? null),
        previous_until_ms: keep ? Date.now() + SECRET_GRACE_MS : (config?.previous_until_ms ?? 0),
      };
      if (bugs.has('no-secret-grace')) config.previous_secret = null;
    });
    try {
      await serial(catchUp);
      res.json({ configured: true });
    } catch (err) {
      res.status(502).json({ error: `catch-up failed: ${(err as Error).message}` });
    }
  });

  app.post(options.webhook_path ?? '/webhooks', express.raw({ type: () => true, limit: '2mb' }), async (req: Request, res: Response) => {
    const received: Buffer = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    // The latin1-body variant signs (and parses) the body's latin1 text re-encoded as UTF-8: other bytes wherever it is not ASCII.
    const raw = bugs.has('latin1-body')
      ? Buffer.from(received.toString('latin1'), 'utf8')
      : bugs.has('reserialized-hmac')
        ? reserialized(received)
        : received;
    if (config === null) return void res.status(503).send('not configured');
    const timestamp = String(req.headers[`${prefix}-timestamp`] ?? '');
    const signature = String(req.headers[`${prefix}-signature`] ?? '');
    const c: Config = config;
    const signed =
      validSignature(c.webhook_secret, timestamp, raw, signature) ||
      (c.previous_secret !== null && Date.now() < c.previous_until_ms && validSignature(c.previous_secret, timestamp, raw, signature));
    if (!bugs.has('no-signature-check') && !signed) {
      return void res.status(401).send('invalid signature');
    }
    // Correctly signed is not enough: a captured delivery replayed later (or stamped ahead) is refused too.
    if (!bugs.has('no-timestamp-check') && !freshTimestamp(timestamp, Date.now())) {
      return void res.status(401).send('stale or future timestamp');
    }
    let event: Envelope;
    try {
      event = JSON.parse(raw.toString('utf8'));
    } catch {
      return void res.status(400).send('not JSON');
    }
    if (options.answer_delay_ms) await answerLate();
    if (style === 'feed-only') return void res.status(200).send('ok');
    if (style === 'nudge') {
      res.status(200).send('ok');
      // A failed read is not lost: the next nudge, or the probe's sync, resumes from the same cursor.
      void serial(catchUp).catch(() => undefined);
      return;
    }
    if (style === 'deferred') {
      res.status(202).send('accepted');
      // Applied to the ledger of the provider that sent it: a configure in between starts another world.
      const into = ledger;
      const later = new Promise((resolve) => setTimeout(resolve, options.defer_ms ?? 200))
        // The feed is the backstop for an apply that throws: the next sync reads the event again.
        .then(() => serial(async () => (into === ledger ? into.apply(event) : false)))
        .catch(() => undefined)
        .finally(() => deferred.delete(later));
      deferred.add(later);
      return;
    }
    try {
      const applied = bugs.has('racy-dedupe') ? await ledger.apply(event) : await serial(() => ledger.apply(event));
      if (bugs.has('slow-handler') && /\.settled$/.test(event.type)) await new Promise((resolve) => setTimeout(resolve, SLOW_HANDLER_MS));
      if (bugs.has('fails-then-applies') && applied) return void res.status(500).send('post-commit step failed');
      res.status(200).send('ok');
    } catch (err) {
      // Not applied: a non-2xx makes the provider retry the delivery later.
      res.status(500).send(`not applied: ${(err as Error).message}`);
    }
  });

  app.get('/probe/state', (req: Request, res: Response) => {
    const account_id = req.query.account_id;
    if (typeof account_id !== 'string' || account_id.length === 0) return void res.status(400).json({ error: 'account_id is required' });
    res.json(ledger.state(account_id));
  });

  app.post('/probe/sync', async (_req: Request, res: Response) => {
    try {
      await Promise.all([...deferred]);
      res.json({ synced: true, events_read: await serial(catchUp) });
    } catch (err) {
      res.status(502).json({ error: `catch-up failed: ${(err as Error).message}` });
    }
  });

  let timer: NodeJS.Timeout | null = null;
  if (options.poll_ms && options.poll_ms > 0) {
    timer = setInterval(() => void serial(catchUp).catch(() => undefined), options.poll_ms);
    timer.unref();
  }
  return { app, stop: () => timer !== null && clearInterval(timer) };
}

export interface RunningIntegrator {
  url: string;
  port: number;
  close(): Promise<void>;
}

export async function startIntegrator(options: IntegratorOptions & { port?: number; host?: string } = {}): Promise<RunningIntegrator> {
  const { app, stop } = createIntegratorApp(options);
  const server: Server = createServer(app);
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://${host}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        stop();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
