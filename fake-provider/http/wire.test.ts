// The wire guard over a real server and raw sockets: a Content-Length past the limit is refused unread, a
// chunked body at the limit, an oversized `Expect: 100-continue` gets its refusal (never `100 Continue`), a
// body that never completes gets 408, a charset other than UTF-8 gets 415, bytes that are not UTF-8 get 400;
// each in the envelope, nothing changed, and the journal replays every one of them.
import { connect, type Socket } from 'node:net';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSim, type TestSim } from '../testing/harness.ts';
import { parseJournal, replayJournal } from '../replay/run.ts';
import { DEFAULT_PROFILE } from '../profile.ts';
import { MAX_BODY_BYTES } from './limits.ts';

let sim: TestSim;
const journal = join(mkdtempSync(join(tmpdir(), 'swapsim-wire-')), 'run.jsonl');
beforeAll(async () => {
  sim = await startTestSim({ journal_path: journal, profile: { ...DEFAULT_PROFILE, request_body_timeout_ms: 300 } });
});
afterAll(() => sim.close());

interface Exchange {
  socket: Socket;
  /** Everything the server sent until it closed the connection. */
  closed: Promise<string>;
  text: () => string;
}

function open(head: string): Exchange {
  const socket = connect(sim.running.port, '127.0.0.1');
  let text = '';
  socket.setEncoding('latin1');
  socket.on('data', (d: string) => (text += d));
  socket.on('error', () => undefined);
  const closed = new Promise<string>((r) => socket.on('close', () => r(text)));
  socket.write(head);
  return { socket, closed, text: () => text };
}

const headOf = (path: string, headers: Record<string, string>): string =>
  `POST /v1${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${sim.api_key}\r\nIdempotency-Key: wire-${Math.random()}\r\n${Object.entries(
    headers,
  )
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')}\r\n`;

function parsed(raw: string): { status: number; headers: string; body: any } {
  const last = raw.lastIndexOf('HTTP/1.1 ');
  const at = raw.indexOf('\r\n\r\n', last);
  return {
    status: Number(raw.slice(last + 9, last + 12)),
    headers: raw.slice(last, at).toLowerCase(),
    body: JSON.parse(raw.slice(at + 4)),
  };
}

const accounts = async (): Promise<number> => (await sim.api('GET', '/accounts?limit=100')).body.accounts.length;

describe('the wire', () => {
  it('a Content-Length past the limit is refused unread: 413 in the envelope, connection closed', async () => {
    const before = await accounts();
    const x = open(`${headOf('/accounts', { 'Content-Type': 'application/json', 'Content-Length': String(100 * 1024 * 1024) })}{"label":`);
    // Not one more byte is sent: the answer cannot wait for the body.
    const r = parsed(await x.closed);
    expect(r.status).toBe(413);
    expect(r.body.error).toMatchObject({ code: 'payload_too_large', type: 'invalid_request' });
    expect(r.body.error.request_id).toBe(r.body.request_id);
    expect(r.headers).toContain('connection: close');
    expect(await accounts()).toBe(before);
  });

  it('a chunked body is cut at the limit: 413, and the server stops reading', async () => {
    const x = open(headOf('/accounts', { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' }));
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    const frame = Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')]);
    let sent_bytes = 0;
    let closed = false;
    void x.closed.then(() => (closed = true));
    // A client that never stops: at most what the socket buffers gets past the refusal.
    while (!closed && sent_bytes < 64 * MAX_BODY_BYTES) {
      sent_bytes += chunk.length;
      if (!x.socket.write(frame))
        await new Promise((r) => {
          x.socket.once('drain', r);
          x.socket.once('close', r);
        });
    }
    const r = parsed(await x.closed);
    expect(r.status).toBe(413);
    expect(r.body.error.code).toBe('payload_too_large');
    expect(sent_bytes).toBeLessThan(16 * MAX_BODY_BYTES);
  });

  it('Expect: 100-continue with an oversized length gets 413, never 100 Continue; a small one is continued', async () => {
    const big = open(
      headOf('/accounts', { 'Content-Type': 'application/json', 'Content-Length': String(2 * MAX_BODY_BYTES), Expect: '100-continue' }),
    );
    const raw = await big.closed;
    expect(raw).not.toContain('100 Continue');
    expect(parsed(raw).status).toBe(413);
    const body = '{"label":"continued"}';
    const small = open(
      headOf('/accounts', {
        'Content-Type': 'application/json',
        'Content-Length': String(body.length),
        Expect: '100-continue',
        Connection: 'close',
      }),
    );
    await expect.poll(() => small.text(), { timeout: 2_000 }).toContain('HTTP/1.1 100 Continue');
    small.socket.write(body);
    const r = parsed(await small.closed);
    expect(r.status).toBe(200);
    expect(r.body.account.label).toBe('continued');
  });

  it('a body that never completes: 408 request_timeout in the envelope after request_body_timeout_ms, nothing created', async () => {
    const before = await accounts();
    const x = open(`${headOf('/accounts', { 'Content-Type': 'application/json', 'Content-Length': '100' })}{"label":"never`);
    const r = parsed(await x.closed);
    expect(r.status).toBe(408);
    expect(r.body.error).toMatchObject({ code: 'request_timeout', type: 'invalid_request' });
    expect(r.headers).toContain('connection: close');
    expect(await accounts()).toBe(before);
  });

  it('a body in a charset other than UTF-8 is 415 naming Content-Type, nothing created', async () => {
    const before = await accounts();
    for (const type of ['application/json; charset=utf-16', 'application/json; charset=UTF-16LE', 'application/json;charset="utf-32"']) {
      const r = await sim.api('POST', '/accounts', { raw: '{"label":"x"}', headers: { 'content-type': type } });
      expect(r.status, type).toBe(415);
      expect(r.body.error, type).toMatchObject({ code: 'unsupported_media_type', param: 'Content-Type' });
    }
    expect(
      (await sim.api('POST', '/accounts', { raw: '{"label":"ok"}', headers: { 'content-type': 'application/json; charset=UTF-8' } }))
        .status,
    ).toBe(200);
    expect(await accounts()).toBe(before + 1);
  });

  it('bytes that are not UTF-8 in a JSON body are 400 invalid_parameter, nothing created (never stored as U+FFFD)', async () => {
    const before = await accounts();
    for (const bad of [[0x80], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xff], [0xe2, 0x82]]) {
      const body = Buffer.concat([Buffer.from('{"label":"a'), Buffer.from(bad), Buffer.from('"}')]);
      const x = open(
        headOf('/accounts', {
          'Content-Type': 'application/json; charset=utf-8',
          'Content-Length': String(body.length),
          Connection: 'close',
        }),
      );
      x.socket.write(body);
      const r = parsed(await x.closed);
      expect(r.status, bad.join(' ')).toBe(400);
      expect(r.body.error).toMatchObject({ code: 'invalid_parameter', type: 'invalid_request' });
      expect(r.body.error.message).toContain('UTF-8');
    }
    expect(await accounts()).toBe(before);
  });

  it('every refusal above replays to the same answer', async () => {
    await sim.close();
    const report = await replayJournal(parseJournal(readFileSync(journal, 'utf8')), { verify: true });
    expect(report.mismatch).toBeNull();
    expect(report.diverged).toBeNull();
    expect(report.verified).toBeGreaterThan(10);
    sim = await startTestSim();
  });
});
