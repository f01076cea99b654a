// `swapsim listen`: tails your organization's event feed (GET /v1/events) one compact line an event, and with
// --forward-to registers a webhook to that URL for the session, prints its signing secret, shows each
// delivery's answer from the delivery log (GET /v1/webhooks/{id}/deliveries), and takes it down on exit.
import type { Command, CommanderError } from 'commander';
import { errorOf, type ApiClient, type Reply } from '../lib/http-client.ts';
import { organizationOptions } from './trigger.ts';

/** A delivery attempt's answer as printed: its HTTP status, or that none came (status 0: a timeout, a refused
 * connection, DNS). */
export function answerOf(http_status: number): string {
  return http_status === 0 ? 'no answer (timeout or refused)' : `HTTP ${http_status}`;
}

export interface ListenOptions {
  base_url: string;
  api_key: string;
  /** Comma list of event types, wildcards allowed (`trade.*,deposit.flagged`). */
  events?: string;
  forward_to?: string;
  /** Where "now" is read to start from (default `<origin of base_url>/_sim`); without it the feed is read to its end. */
  control_url?: string;
  control_token?: string;
  interval_ms?: number;
  print(line: string): void;
}

export interface Listening {
  /** The session's webhook, when forwarding; `replaced`: the org's webhook it took over from. */
  webhook?: { webhook_id: string; secret: string; url: string; replaced?: { webhook_id: string; url: string } };
  /** One round: new events, then delivery answers. The loop calls it every interval; tests may too. */
  poll(): Promise<void>;
  /** Stops polling; deactivates the session's webhook and makes the replaced one active again. */
  stop(): Promise<void>;
}

class ListenError extends Error {}

const iso = (ms: number): string => new Date(ms).toISOString().replace('T', ' ').replace('Z', '');

function eventLine(e: any): string {
  const family = String(e.type).split('.')[0];
  const own = e.data?.[`${family}_id`];
  const subject = typeof own === 'string' ? own : e.account_id;
  const detail = ['status', 'failure_code', 'flag_reason', 'flagged_by', 'suspension_reason']
    .filter((k) => typeof e.data?.[k] === 'string')
    .map((k) => `${k}=${e.data[k]}`)
    .join(' ');
  return `${iso(e.created_at_ms)}  ${String(e.type).padEnd(30)} ${subject}${detail ? `  ${detail}` : ''}  account=${e.account_id}  ${e.event_id}`;
}

const must = <T>(r: Reply<T>, what: string): T => {
  if (r.status !== 200)
    throw new ListenError(
      `${what}: ${r.status} ${r.network_error ?? errorOf(r.body)?.code ?? ''} ${errorOf(r.body)?.message ?? ''}`.trim(),
    );
  return r.body;
};

export async function startListen(o: ListenOptions): Promise<Listening> {
  const { apiClient, controlClient } = await import('../lib/http-client.ts');
  const { WALL } = await import('../sim/wall.ts');
  const base_url = o.base_url.replace(/\/$/, '');
  const api: ApiClient = apiClient(base_url, o.api_key, `listen-${WALL.now_ms().toString(36)}`);
  must(await api.call('GET', '/assets?limit=1'), `GET ${base_url}/assets with that API key`);

  // Start from now: the sim clock when the control plane answers, else the end of the feed as it stands.
  let since_ms = 0;
  let at_since = new Set<string>();
  const types = o.events ? `&types=${encodeURIComponent(o.events)}` : '';
  const typeOf = new Map<string, string>();
  let origin = '';
  try {
    origin = new URL(base_url).origin;
  } catch {
    throw new ListenError(`not a URL: ${o.base_url}`);
  }
  const clock = await controlClient((o.control_url ?? `${origin}/_sim`).replace(/\/$/, ''), o.control_token).call('GET', '/clock');
  const readFeed = async (onEvent: (e: any) => void): Promise<void> => {
    let cursor = '';
    for (;;) {
      const page = must(await api.call('GET', `/events?limit=100&since_ms=${since_ms}${types}${cursor}`), 'GET /v1/events');
      for (const e of page.events) {
        if (e.created_at_ms < since_ms || (e.created_at_ms === since_ms && at_since.has(e.event_id))) continue;
        if (e.created_at_ms > since_ms) {
          since_ms = e.created_at_ms;
          at_since = new Set();
        }
        at_since.add(e.event_id);
        typeOf.set(e.event_id, e.type);
        onEvent(e);
      }
      if (!page.has_more || page.next_cursor === null) return;
      cursor = `&cursor=${encodeURIComponent(page.next_cursor)}`;
    }
  };
  // What is already there at that moment is not new (events published at exactly `now` included).
  if (clock.status === 200) since_ms = clock.body.clock.now_ms;
  await readFeed(() => undefined);
  const started_ms = since_ms;

  let webhook: Listening['webhook'];
  if (o.forward_to) {
    const hooks = must(await api.call('GET', '/webhooks?limit=100'), 'GET /v1/webhooks').webhooks;
    const previous = hooks.find((w) => w.active);
    const created = await api.call('POST', '/webhooks', { body: { url: o.forward_to } });
    const w = must(created, `registering a webhook to ${o.forward_to}`).webhook;
    if (w.secret === undefined) throw new ListenError(`registering a webhook to ${o.forward_to}: the answer has no secret`);
    webhook = {
      webhook_id: w.webhook_id,
      secret: w.secret,
      url: w.url,
      ...(previous ? { replaced: { webhook_id: previous.webhook_id, url: previous.url } } : {}),
    };
    o.print(`forwarding to ${w.url} through webhook ${w.webhook_id}`);
    o.print(`signing secret: ${w.secret}`);
    if (previous)
      o.print(
        `your webhook ${previous.webhook_id} (${previous.url}) is inactive while this runs (the API keeps one active webhook per organization); it is made active again on exit`,
      );
  }
  o.print(`listening to ${base_url}/events${o.events ? ` (types ${o.events})` : ''}; Ctrl-C to stop`);

  const answers = new Map<string, string>();
  const pollDeliveries = async (): Promise<void> => {
    if (!webhook) return;
    const page = must(await api.call('GET', `/webhooks/${webhook.webhook_id}/deliveries?limit=100`), 'GET deliveries');
    // Newest first: print oldest first.
    for (const d of [...page.deliveries].reverse()) {
      if (d.attempted_at_ms === null || d.attempted_at_ms === undefined) continue;
      const key = `${d.status}|${d.http_status}|${d.attempted_at_ms}`;
      if (answers.get(d.delivery_id) === key) continue;
      answers.set(d.delivery_id, key);
      const retry = d.next_retry_at_ms ? `, retry at ${iso(d.next_retry_at_ms)}` : '';
      o.print(`  ↳ ${d.delivery_id} ${typeOf.get(d.event_id) ?? 'event'} ${d.event_id} → ${answerOf(d.http_status)} ${d.status}${retry}`);
    }
  };

  let stopped = false;
  let round: Promise<void> = Promise.resolve();
  const poll = (): Promise<void> => {
    round = round.then(async () => {
      if (stopped) return;
      await readFeed((e) => o.print(eventLine(e)));
      await pollDeliveries();
    });
    return round;
  };
  const interval_ms = o.interval_ms ?? 500;
  let timer: NodeJS.Timeout | undefined;
  const loop = (): void => {
    timer = setTimeout(() => {
      poll()
        .catch((err) => o.print(`listen: ${err instanceof Error ? err.message : String(err)}`))
        .finally(() => {
          if (!stopped) loop();
        });
    }, interval_ms);
  };
  loop();

  return {
    webhook,
    poll,
    async stop() {
      if (stopped) return;
      // The last answers first, then no more rounds.
      await poll().catch(() => undefined);
      stopped = true;
      if (timer) clearTimeout(timer);
      await round.catch(() => undefined);
      if (!webhook) return;
      // The API has no DELETE for webhooks: deactivated, it gets no delivery and its pending retries stop.
      const off = await api.call('PATCH', `/webhooks/${webhook.webhook_id}`, { body: { active: false } });
      o.print(
        off.status === 200
          ? `webhook ${webhook.webhook_id} deactivated`
          : `could not deactivate webhook ${webhook.webhook_id}: ${off.status} ${errorOf(off.body)?.code ?? off.network_error ?? ''}`,
      );
      if (webhook.replaced) {
        const on = await api.call('PATCH', `/webhooks/${webhook.replaced.webhook_id}`, { body: { active: true } });
        o.print(
          on.status === 200
            ? `webhook ${webhook.replaced.webhook_id} active again; events of the session went to ${webhook.url} only: POST /v1/webhooks/${webhook.replaced.webhook_id}/replay {"since_ms": ${started_ms}} delivers them to it`
            : `could not reactivate webhook ${webhook.replaced.webhook_id}: ${on.status} ${errorOf(on.body)?.code ?? on.network_error ?? ''}`,
        );
      }
    },
  };
}

export function registerListen(program: Command): void {
  organizationOptions(program.command('listen'), "control plane, to start from the sim clock's now (default <origin of --base-url>/_sim)")
    .description("tail your organization's events live; with --forward-to, forward them to your app through a webhook for the session")
    .option('--forward-to <url>', 'register a webhook to this URL while listening (its signing secret is printed); taken down on exit')
    .option('--events <types>', 'only these event types (comma list, wildcards: trade.*,deposit.flagged)')
    .option('--interval-ms <ms>', 'how often to read the feed and the delivery log', (v) => Number(v), 500)
    .exitOverride((err: CommanderError) => process.exit(err.exitCode === 0 ? 0 : 2))
    .action(
      async (
        flags: {
          forwardTo?: string;
          events?: string;
          baseUrl: string;
          apiKey: string;
          controlUrl?: string;
          controlToken?: string;
          intervalMs: number;
        },
        cmd: Command,
      ) => {
        if (!Number.isInteger(flags.intervalMs) || flags.intervalMs < 50)
          cmd.error('swapsim listen: --interval-ms must be an integer of at least 50', { exitCode: 2 });
        let session: Listening;
        try {
          session = await startListen({
            base_url: flags.baseUrl,
            api_key: flags.apiKey,
            events: flags.events,
            forward_to: flags.forwardTo,
            control_url: flags.controlUrl,
            control_token: flags.controlToken,
            interval_ms: flags.intervalMs,
            print: (line) => process.stdout.write(`${line}\n`),
          });
        } catch (err) {
          if (err instanceof ListenError) cmd.error(`swapsim listen: ${err.message}`, { exitCode: 2, code: 'swapsim.usage' });
          throw err;
        }
        let closing = false;
        const shutdown = (signal: string): void => {
          if (closing) process.exit(1);
          closing = true;
          process.stdout.write(`listen: ${signal}, stopping\n`);
          session.stop().then(
            () => process.exit(0),
            (err) => {
              process.stderr.write(`listen: ${err instanceof Error ? err.message : String(err)}\n`);
              process.exit(1);
            },
          );
        };
        process.on('SIGINT', () => shutdown('SIGINT'));
        process.on('SIGTERM', () => shutdown('SIGTERM'));
      },
    );
}
