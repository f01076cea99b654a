// Hostile bodies and requests get the envelope, never a 5xx, and leave /_sim/invariants green: bodies nested
// 10,000 deep, Content-Encoding the bytes don't follow, headers past node's limit, malformed request lines, CONNECT.
import { request } from 'node:http';
import { connect } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSim, type TestSim } from '../testing/harness.ts';
import { canonicalJson } from './idempotency.ts';

let sim: TestSim;
beforeAll(async () => {
  sim = await startTestSim();
});
afterAll(async () => {
  await sim.close();
});

let idem = 0;
function post(path: string, headers: Record<string, string>, body: Buffer | string): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const r = request(
      {
        host: '127.0.0.1',
        port: sim.running.port,
        method: 'POST',
        path,
        headers: {
          authorization: `Bearer ${sim.api_key}`,
          'content-type': 'application/json',
          'idempotency-key': `h-${++idem}`,
          ...headers,
        },
      },
      (res) => {
        let text = '';
        res.on('data', (d) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
      },
    );
    r.on('error', reject);
    r.end(body);
  });
}

/** What comes back on a raw socket for raw bytes (node's parser refuses these before any handler runs). */
function rawExchange(bytes: string): Promise<string> {
  return new Promise((resolve) => {
    const c = connect(sim.running.port, '127.0.0.1', () => c.write(bytes));
    let text = '';
    c.on('data', (d) => (text += d));
    c.on('close', () => resolve(text));
    c.on('error', () => resolve(text));
  });
}

const envelopeOf = (text: string) => JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4));

describe('hostile requests', () => {
  it('a body nested 10,000 deep is 400 before parsing; a shallow one passes', async () => {
    const deep = '['.repeat(10_000) + ']'.repeat(10_000);
    for (const path of ['/v1/accounts', '/_sim/organizations']) {
      const r = await post(path, {}, `{"label":"x","extra":${deep}}`);
      expect(r.status, path).toBe(400);
      expect(r.body.error).toMatchObject({ code: 'invalid_parameter', message: expect.stringContaining('nests deeper than 64') });
    }
    // Brackets inside strings are text, not nesting.
    expect((await post('/v1/accounts', {}, JSON.stringify({ label: '['.repeat(100) }))).status).toBe(200);
    expect(() => canonicalJson(JSON.parse('['.repeat(5_000) + ']'.repeat(5_000)))).toThrow(/nests deeper/);
  });

  it('a body that does not decode with its Content-Encoding is 400; a good gzip body works', async () => {
    for (const enc of ['gzip', 'deflate', 'br']) {
      const r = await post('/v1/accounts', { 'content-encoding': enc }, 'these bytes are not compressed');
      expect(r.status, enc).toBe(400);
      expect(r.body.error).toMatchObject({ code: 'invalid_parameter', param: 'Content-Encoding' });
    }
    expect((await post('/v1/accounts', { 'content-encoding': 'zstd' }, 'x')).status).toBe(415);
    expect((await post('/v1/accounts', { 'content-encoding': 'gzip' }, gzipSync('{"label":"g"}'))).body.account.label).toBe('g');
  });

  it("node's own refusals and CONNECT carry the envelope", async () => {
    const big = await rawExchange(`GET /v1/assets HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(big).toMatch(/^HTTP\/1\.1 431 /);
    expect(envelopeOf(big).error).toMatchObject({ code: 'headers_too_large', request_id: expect.stringMatching(/^req_/) });
    const garbage = await rawExchange('GARBAGE\r\n\r\n');
    expect(garbage).toMatch(/^HTTP\/1\.1 400 /);
    expect(envelopeOf(garbage).error.code).toBe('invalid_parameter');
    const tunnel = await rawExchange('CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n');
    expect(tunnel).toMatch(/^HTTP\/1\.1 404 /);
    expect(envelopeOf(tunnel).error.code).toBe('route_not_found');
  });

  it('none of it counts as a swapsim bug', async () => {
    expect(await sim.invariants()).toMatchObject({ ok: true, violations: [] });
  });
});
