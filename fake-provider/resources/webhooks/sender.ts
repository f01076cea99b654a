// The wire side of a delivery: the signature scheme (`v1=` hex HMAC-SHA256 over `timestamp.body`) and
// one real HTTP POST per copy. Wall time bounds the network I/O only (AbortSignal.timeout), never the sim.
// The receiver's answer is an outside input: a journal records it, and a replay substitutes the recording.
import { createHmac } from 'node:crypto';
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { Journal } from '../../../sim/journal.ts';

/** Keep-alive connection pools for one world's deliveries (node:http costs a fraction of fetch per POST). */
export interface Transport {
  http: HttpAgent;
  https: HttpsAgent;
}

export function createTransport(): Transport {
  return { http: new HttpAgent({ keepAlive: true, maxSockets: 64 }), https: new HttpsAgent({ keepAlive: true, maxSockets: 64 }) };
}

/** `v1=` + hex HMAC-SHA256 keyed with the secret's UTF-8 bytes over `<timestamp>.<raw body>`. */
export function signature(secret: string, timestamp: string, body: string): string {
  // node:crypto's native HMAC: the same bytes as a pure-JS one, at a fraction of the cost per delivery.
  return `v1=${createHmac('sha256', secret).update(`${timestamp}.${body}`, 'utf8').digest('hex')}`;
}

export interface SignedRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

export function signedRequest(opts: {
  url: string;
  prefix: string;
  secret: string;
  webhook_id: string;
  event_id: string;
  delivery_id: string;
  timestamp_ms: number;
  body: string;
}): SignedRequest {
  const p = opts.prefix;
  const timestamp = String(opts.timestamp_ms);
  return {
    url: opts.url,
    body: opts.body,
    headers: {
      'Content-Type': 'application/json',
      'User-Agent': 'swapsim-webhooks/1',
      [`${p}-Webhook-Id`]: opts.webhook_id,
      [`${p}-Event-Id`]: opts.event_id,
      [`${p}-Delivery-Id`]: opts.delivery_id,
      [`${p}-Timestamp`]: timestamp,
      [`${p}-Signature`]: signature(opts.secret, timestamp, opts.body),
    },
  };
}

/**
 * The HTTP status, or 0 when nothing answered (timeout, refused connection, DNS, TLS…). With a journal
 * the answer goes through it (keyed by delivery id and timestamp): recorded, or in a replay taken from
 * the recording without any network call.
 */
export function post(req: SignedRequest, timeout_ms: number, journal?: Journal, transport?: Transport): Promise<number> {
  if (!journal || journal.mode === 'off') return send(req, timeout_ms, transport);
  const header = (suffix: string): string => Object.entries(req.headers).find(([name]) => name.endsWith(suffix))?.[1] ?? '';
  return journal.outside('webhook', `${header('-Delivery-Id')}@${header('-Timestamp')}`, () => send(req, timeout_ms, transport));
}

/**
 * One POST over node:http(s) with a keep-alive agent. Redirects are not followed (a 3xx is not a 2xx: a
 * failed attempt). The answer is the status line's code once the body is drained, ended or cut off; 0 when
 * no response came (timeout, refused connection, DNS, TLS…). The whole exchange is bounded by timeout_ms.
 */
function send(req: SignedRequest, timeout_ms: number, transport: Transport = createTransport()): Promise<number> {
  return new Promise((resolve) => {
    let status = 0;
    const done = (): void => resolve(status);
    try {
      const https = req.url.startsWith('https:');
      const out = (https ? httpsRequest : httpRequest)(
        req.url,
        {
          method: 'POST',
          headers: { ...req.headers, 'Content-Length': String(Buffer.byteLength(req.body)) },
          agent: https ? transport.https : transport.http,
          signal: AbortSignal.timeout(timeout_ms),
        },
        (res) => {
          status = res.statusCode ?? 0;
          // Drain the body so the connection can be reused; a receiver that stalls mid-body still times out.
          res.on('end', done).on('error', done).on('close', done).resume();
        },
      );
      out.on('error', done);
      out.end(req.body);
    } catch {
      resolve(0);
    }
  });
}
