// Connection limits: slow headers and slow bodies are cut off (408 in the envelope where the socket allows),
// connections past max_connections are closed at once, a long-running answer is not cut, and close()
// finishes while a slow client still holds its socket.
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { serve, type RunningServer } from './server.ts';
import { DEFAULT_PROFILE } from './profile.ts';
import { startReceiver } from '../scenarios/dsl/webhook-receiver.ts';

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((o) => o.close()));
});

async function server(limits: Parameters<typeof serve>[0]['limits'], profile = DEFAULT_PROFILE): Promise<RunningServer> {
  const s = await serve({ clock: 'virtual', seed: 1, port: 0, limits, profile, seed_orgs: [{ api_keys: ['sk_conn_test'] }] });
  open.push(s);
  return s;
}

function socketTo(s: RunningServer): Promise<{ socket: Socket; text: () => string; closed: Promise<void> }> {
  return new Promise((resolve) => {
    let text = '';
    const socket = connect(s.port, '127.0.0.1', () => resolve({ socket, text: () => text, closed }));
    const closed = new Promise<void>((r) => socket.on('close', () => r()));
    socket.on('data', (d) => (text += d));
    socket.on('error', () => undefined);
  });
}

const within = <T>(p: Promise<T>, ms: number) =>
  Promise.race([p.then(() => 'done' as const), new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), ms))]);

describe('connection limits', () => {
  it('headers that never finish are answered 408 in the envelope and the socket closed', async () => {
    const s = await server({ headers_timeout_ms: 300, request_timeout_ms: 600 });
    const c = await socketTo(s);
    c.socket.write('GET /v1/assets HTTP/1.1\r\nHost: x\r\nX-Slow: ');
    expect(await within(c.closed, 10_000)).toBe('done');
    expect(c.text()).toMatch(/^HTTP\/1\.1 408 /);
    expect(JSON.parse(c.text().slice(c.text().indexOf('\r\n\r\n') + 4)).error.code).toBe('request_timeout');
  });

  it('a body that never finishes loses its connection; the server stays healthy', async () => {
    const s = await server({ headers_timeout_ms: 300, request_timeout_ms: 600 });
    const c = await socketTo(s);
    c.socket.write(
      'POST /v1/accounts HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer sk_conn_test\r\nIdempotency-Key: slow\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"lab',
    );
    expect(await within(c.closed, 10_000)).toBe('done');
    const inv = (await (await fetch(`${s.control_url}/invariants`)).json()) as { ok: boolean };
    expect(inv.ok).toBe(true);
  });

  it('past max_connections a new connection is closed at once', async () => {
    const s = await server({ max_connections: 2 });
    const a = await socketTo(s);
    const b = await socketTo(s);
    const c = await socketTo(s);
    expect(await within(c.closed, 5_000)).toBe('done');
    expect(await within(a.closed, 200)).toBe('timeout');
    a.socket.destroy();
    b.socket.destroy();
  });

  it('an answer that takes longer than request_timeout_ms is not cut (the timeout is for receiving)', async () => {
    const rx = await startReceiver();
    open.push(rx);
    rx.answer = async () => {
      await new Promise((r) => setTimeout(r, 1_500));
      return 200;
    };
    const s = await server({ headers_timeout_ms: 300, request_timeout_ms: 500 });
    const auth = { authorization: 'Bearer sk_conn_test', 'content-type': 'application/json' };
    expect((await fetch(`${s.base_url}/webhooks`, { method: 'POST', headers: auth, body: JSON.stringify({ url: rx.url }) })).status).toBe(
      200,
    );
    expect(
      (await fetch(`${s.base_url}/accounts`, { method: 'POST', headers: { ...auth, 'idempotency-key': 'a' }, body: '{}' })).status,
    ).toBe(200);
    const settled = await fetch(`${s.control_url}/clock/settle`, { method: 'POST', headers: auth, body: JSON.stringify({ max_ms: 1000 }) });
    expect(settled.status).toBe(200);
    expect(rx.received.length).toBeGreaterThan(0);
  });

  it('close() finishes while a slow client still holds a socket', async () => {
    const s = await serve({ clock: 'virtual', seed: 1, port: 0, limits: { request_timeout_ms: 600_000, headers_timeout_ms: 600_000 } });
    const c = await socketTo(s);
    c.socket.write('POST /v1/accounts HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{');
    expect(await within(s.close(), 15_000)).toBe('done');
  });
});
