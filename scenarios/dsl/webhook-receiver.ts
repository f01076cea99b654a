// The webhook receiver scenarios register (scenarios/dsl: a run's deliveries land here; tests use it too): node:http
// on an ephemeral port that checks every signature on its own (node:crypto over the raw body), records what
// arrived, and answers as told (2xx, 500, 401, or hangs).
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { wallNow_ms } from '../../sim/clock.ts';

export interface Received {
  headers: Record<string, string>;
  raw: string;
  body: { event_id: string; type: string; created_at_ms: number; account_id: string; data: Record<string, unknown> };
  /** The header names, as the receiver's framework would see them (lowercase). */
  webhook_id: string;
  event_id: string;
  delivery_id: string;
  /** `Svc-Timestamp`: the wall time of the attempt. */
  timestamp_ms: number;
  /** When it arrived, on the receiver's `now_ms` (wall time unless given; tests pass the sim clock). */
  received_at_ms: number;
  signature_valid: boolean;
  answered: number | 'hang';
}

/** What to answer: a status, or 'hang' (never answer; the sender's timeout must fire). */
type Answer = number | 'hang';

export interface Receiver {
  url: string;
  received: Received[];
  /** The secret signatures are checked against. */
  secret: string;
  /** Decides the answer (may await, e.g. call the API back); the default: 401 to a bad signature, else 200. */
  answer: (r: Received) => Answer | Promise<Answer>;
  close(): Promise<void>;
}

/** Event ids the receiver accepted: answered 2xx to a delivery with a valid signature. */
export function acceptedEventIds(receiver: Receiver): Set<string> {
  return new Set(
    receiver.received.filter((r) => r.signature_valid && typeof r.answered === 'number' && r.answered < 300).map((r) => r.event_id),
  );
}

export function verify(secret: string, timestamp: string, raw: string, header: string): boolean {
  const expected = Buffer.from(`v1=${createHmac('sha256', secret).update(`${timestamp}.${raw}`).digest('hex')}`);
  const given = Buffer.from(header);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

export async function startReceiver(secret = '', prefix = 'Svc', now_ms: () => number = wallNow_ms): Promise<Receiver> {
  const p = prefix.toLowerCase();
  const receiver: Receiver = {
    url: '',
    received: [],
    secret,
    answer: (r) => (r.signature_valid ? 200 : 401),
    close: async () => undefined,
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const h = (name: string): string => String(req.headers[name] ?? '');
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) headers[k] = String(v);
      const r: Received = {
        headers,
        raw,
        body: JSON.parse(raw),
        webhook_id: h(`${p}-webhook-id`),
        event_id: h(`${p}-event-id`),
        delivery_id: h(`${p}-delivery-id`),
        timestamp_ms: Number(h(`${p}-timestamp`)),
        received_at_ms: now_ms(),
        signature_valid: verify(receiver.secret, h(`${p}-timestamp`), raw, h(`${p}-signature`)),
        answered: 200,
      };
      receiver.received.push(r);
      r.answered = await receiver.answer(r);
      if (r.answered === 'hang') return;
      res.writeHead(r.answered, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  receiver.close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return receiver;
}
