// One delivery POST on the wire against real receivers: the status once the body is read, redirects not
// followed, 0 when nothing answers in time, headers and body as signed, and one kept-alive connection.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createTransport, lazySignedRequest, post, signature, signedRequest } from './sender.ts';

let server: Server | undefined;
afterEach(
  () =>
    new Promise<void>((r) => {
      if (!server) return r();
      server.closeAllConnections();
      server.close(() => r());
    }),
);

async function receiver(
  handler: (req: IncomingMessage, res: ServerResponse, body: string) => void,
): Promise<{ url: string; connections: () => number }> {
  let connections = 0;
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => handler(req, res, body));
  });
  server.on('connection', () => connections++);
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', () => r()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks?x=1`, connections: () => connections };
}

const request = (url: string) =>
  signedRequest({
    url,
    prefix: 'Svc',
    secret: 'whsec_test',
    webhook_id: 'wh_1',
    event_id: 'evt_1',
    delivery_id: 'dlv_1',
    timestamp_ms: 1_767_225_600_000,
    body: '{"event_id":"evt_1"}',
  });

describe('post', () => {
  it('sends the signed headers and body to the path and query, and answers the status; connections are kept and reused', async () => {
    const seen: Array<{ url?: string; headers: IncomingMessage['headers']; body: string }> = [];
    const r = await receiver((req, res, body) => {
      seen.push({ url: req.url, headers: req.headers, body });
      res.writeHead(seen.length === 1 ? 204 : seen.length === 2 ? 503 : 200).end();
    });
    const transport = createTransport();
    expect(await post(request(r.url), 2_000, undefined, transport)).toBe(204);
    expect(await post(request(r.url), 2_000, undefined, transport)).toBe(503);
    expect(seen[0].url).toBe('/hooks?x=1');
    expect(seen[0].body).toBe('{"event_id":"evt_1"}');
    expect(seen[0].headers).toMatchObject({
      'content-type': 'application/json',
      'content-length': '20',
      'svc-webhook-id': 'wh_1',
      'svc-event-id': 'evt_1',
      'svc-delivery-id': 'dlv_1',
      'svc-timestamp': '1767225600000',
      'svc-signature': signature('whsec_test', '1767225600000', '{"event_id":"evt_1"}'),
    });
    for (let i = 0; i < 4; i++) expect(await post(request(r.url), 2_000, undefined, transport)).toBe(200);
    // undici may open a second connection when the next request is dispatched as the previous one completes.
    expect(r.connections()).toBeLessThanOrEqual(2);
    await transport.dispatcher.close();
  });

  it('does not follow a redirect: the 3xx is the answer', async () => {
    let hits = 0;
    const r = await receiver((_req, res) => {
      hits++;
      res.writeHead(302, { location: '/elsewhere' }).end();
    });
    expect(await post(request(r.url), 2_000)).toBe(302);
    expect(hits).toBe(1);
  });

  it('answers 0 when nothing answers in time or nothing listens', async () => {
    const r = await receiver(() => undefined);
    expect(await post(request(r.url), 150)).toBe(0);
    expect(await post(request('http://127.0.0.1:1/hooks'), 1_000)).toBe(0);
  });

  it('keeps the status of an answer whose body stalls (cut off at the timeout) or is larger than it reads', async () => {
    const stalls = await receiver((_req, res) => {
      res.writeHead(200, { 'content-length': '100' });
      res.write('partial');
    });
    expect(await post(request(stalls.url), 150)).toBe(200);
    await new Promise<void>((r) => {
      server!.closeAllConnections();
      server!.close(() => r());
    });
    const large = await receiver((_req, res) => res.writeHead(201).end('x'.repeat(3 * 2 ** 20)));
    expect(await post(request(large.url), 5_000)).toBe(201);
  });
});

describe('a lazy request', () => {
  it('is built when its lane starts it: one the lane refuses (queue full) never is, a queued one is once it leaves, and the bytes are those signed', async () => {
    const held: Array<() => void> = [];
    const seen: Array<{ body: string; signature: string | string[] | undefined }> = [];
    const r = await receiver((req, res, body) => {
      seen.push({ body, signature: req.headers['svc-signature'] });
      held.push(() => res.writeHead(200).end());
    });
    // One POST at a time and one waiting: a third at once is refused (0) by the full queue.
    const transport = createTransport(undefined, () => ({ max_in_flight: 1, max_in_flight_total: 1, max_queued: 1 }));
    let builds = 0;
    const lazy = (n: number) =>
      lazySignedRequest({
        url: r.url,
        prefix: 'Svc',
        secret: 'whsec_test',
        webhook_id: 'wh_1',
        event_id: `evt_${n}`,
        delivery_id: `dlv_${n}`,
        timestamp_ms: 1_767_225_600_000,
        body: () => {
          builds++;
          return `{"event_id":"evt_${n}"}`;
        },
      });
    const lane = { lane_id: 'org_1', account_id: 'acct_1', sim_ms: 0 };
    const answers = [1, 2, 3].map((n) => post(lazy(n), 2_000, undefined, transport, lane));
    expect(await answers[2]).toBe(0);
    await vi.waitFor(() => expect(held).toHaveLength(1));
    expect(builds).toBe(1);
    held[0]();
    await vi.waitFor(() => expect(held).toHaveLength(2));
    expect(builds).toBe(2);
    held[1]();
    expect(await Promise.all(answers)).toEqual([200, 200, 0]);
    expect(seen.map((s) => s.body)).toEqual(['{"event_id":"evt_1"}', '{"event_id":"evt_2"}']);
    expect(seen[1].signature).toBe(signature('whsec_test', '1767225600000', '{"event_id":"evt_2"}'));
    await transport.dispatcher.close();
  });
});
