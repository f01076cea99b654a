// The wire side of a delivery: the signature scheme (`v1=` hex HMAC-SHA256 over `timestamp.body`) and
// one real HTTP POST per copy. Wall time bounds the network I/O only (AbortSignal.timeout), never the sim.
import { hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';

/** `v1=` + hex HMAC-SHA256 keyed with the secret's UTF-8 bytes over `<timestamp>.<raw body>`. */
export function signature(secret: string, timestamp: string, body: string): string {
  return `v1=${bytesToHex(hmac(sha256, utf8ToBytes(secret), utf8ToBytes(`${timestamp}.${body}`)))}`;
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

/** The HTTP status, or 0 when nothing answered (timeout, refused connection, DNS, TLS…). */
export async function post(req: SignedRequest, timeout_ms: number): Promise<number> {
  try {
    const res = await fetch(req.url, {
      method: 'POST',
      headers: req.headers,
      body: req.body,
      // A redirect is not a 2xx: it counts as a failed attempt, as it would for a signed webhook.
      redirect: 'manual',
      signal: AbortSignal.timeout(timeout_ms),
    });
    // Drain the body so the connection can be reused; a receiver that stalls mid-body still times out.
    await res.arrayBuffer().catch(() => undefined);
    return res.status;
  } catch {
    return 0;
  }
}
