// The open-loop generator: every due request is sent whatever earlier answers did, and latency runs from
// the due time, so a stalled server shows in the percentiles (a closed loop would hide it).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { openLoop } from './open-loop.ts';

let server: Server | undefined;
afterEach(() => new Promise<void>((r) => (server ? server.close(() => r()) : r())));

async function listen(handler: Parameters<typeof createServer>[1]): Promise<string> {
  server = createServer(handler);
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', () => r()));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/x`;
}

describe('openLoop', () => {
  it('sends rate × duration requests with the given headers and counts status codes', async () => {
    const seen: string[] = [];
    const url = await listen((req, res) => {
      seen.push(String(req.headers.authorization));
      res.statusCode = seen.length % 10 === 0 ? 503 : 200;
      res.end('{}');
    });
    const r = await openLoop({ url, headers: { authorization: 'Bearer k' }, rate_per_s: 200, duration_s: 0.5, connections: 4 });
    expect(r.sent).toBe(100);
    expect(r.answered).toBe(100);
    expect(r.status_codes).toEqual({ 200: 90, 503: 10 });
    expect(r.non_2xx).toBe(10);
    expect(new Set(seen)).toEqual(new Set(['Bearer k']));
  });

  it('times each request from when it was due: a 300 ms stall shows in p90, not only in the few requests in flight', async () => {
    let stalled_until_ms = 0;
    const url = await listen((_req, res) => {
      if (stalled_until_ms === 0) stalled_until_ms = performance.now() + 300;
      const wait_ms = stalled_until_ms - performance.now();
      if (wait_ms > 0) setTimeout(() => res.end('{}'), wait_ms);
      else res.end('{}');
    });
    const r = await openLoop({ url, rate_per_s: 200, duration_s: 1, connections: 4 });
    expect(r.answered).toBe(200);
    // ~60 of 200 requests fall due during the stall and wait for it (up to 300 ms each); a closed loop
    // would have stamped them when a connection freed up, after the stall, and reported them fast.
    expect(r.latency_ms.p90).toBeGreaterThanOrEqual(100);
    expect(r.latency_ms.max).toBeGreaterThanOrEqual(250);
  });

  it('a refused connection counts as an error, not an answer', async () => {
    const url = await listen((_req, res) => res.end());
    await new Promise<void>((r) => server!.close(() => r()));
    server = undefined;
    const r = await openLoop({ url, rate_per_s: 100, duration_s: 0.1, connections: 2 });
    expect(r.errors).toBe(10);
    expect(r.answered).toBe(0);
  });
});
