// The planes on the framework over a real server and client: routing (any case, one trailing slash, HEAD
// from GET, malformed percent-encoding 400, 404s in the envelope naming the path), the OpenAPI documents, the
// readiness probe before journal and gate, the gate before a 404, a body failure before the gate, the journal
// in the order requests take effect, the pipeline's observers (what they see, in which order), and answers
// made in one turn of the event loop written together at its end, each in its order.
import { mkdtempSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startTestSim, type TestSim } from '../testing/harness.ts';
import { readyAccount } from '../testing/flows.ts';
import { parseJournal, replayJournal } from '../replay/run.ts';
import { createRuntime } from '../app.ts';
import { requestJournal } from '../replay/record.ts';
import { defineRoute } from '../contract/route.ts';
import { ApiError } from '../contract/errors.ts';
import Fastify from 'fastify';
import { coalesceWrites, frontDoor } from './planes.ts';
import type { AnsweredRequest, RequestObserver } from './pipeline.ts';

describe('routing on the framework', () => {
  let sim: TestSim;
  let account_id: string;
  beforeAll(async () => {
    sim = await startTestSim();
    account_id = await readyAccount(sim);
  });
  afterAll(() => sim.close());

  it('serves a route whatever the case of the path and with one trailing slash', async () => {
    const plain = await sim.api('GET', `/accounts/${account_id}/balances`);
    expect(plain.status).toBe(200);
    for (const path of [`/accounts/${account_id}/balances/`, `/ACCOUNTS/${account_id}/Balances`]) {
      const r = await sim.api('GET', path);
      expect(r.status, path).toBe(200);
      expect(r.body.balances).toEqual(plain.body.balances);
    }
    // The parameter keeps its case: an id in other case is another (unknown) account.
    expect((await sim.api('GET', `/accounts/${account_id.toUpperCase()}/balances`)).status).toBe(404);
  });

  it('answers HEAD from the GET route, headers only, with the GET body’s length', async () => {
    const get = await fetch(`${sim.base_url}/accounts/${account_id}/balances`, { headers: { authorization: `Bearer ${sim.api_key}` } });
    const text = await get.text();
    const r = await fetch(`${sim.base_url}/accounts/${account_id}/balances`, {
      method: 'HEAD',
      headers: { authorization: `Bearer ${sim.api_key}` },
    });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('application/json; charset=utf-8');
    // Same length as the GET's body (its request_id differs, not its length).
    expect(Number(r.headers.get('content-length'))).toBe(Buffer.byteLength(text));
    expect(await r.text()).toBe('');
  });

  it('a malformed percent-encoding in a path parameter is 400 invalid_parameter; unknown paths and methods are 404', async () => {
    const bad = await sim.api('GET', '/accounts/%E0%A4%A/balances');
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'invalid_parameter', request_id: bad.body.request_id });
    for (const [method, path] of [
      ['GET', `/accounts/${account_id}/balances/extra`],
      ['PUT', `/accounts/${account_id}/balances`],
      ['GET', '//accounts'],
      ['GET', `/accounts/${account_id}/balances//`],
    ] as const) {
      const r = await sim.api(method, path);
      expect(r.status, `${method} ${path}`).toBe(404);
      expect(r.body.error.code).toBe('route_not_found');
    }
  });

  it('a long parameter reaches its route (which answers for it), not the router’s 404', async () => {
    // Past the framework's default 100 characters, within the schema's 128: the account is not found.
    const r = await sim.api('GET', `/accounts/acct_${'a'.repeat(110)}/balances`);
    expect([r.status, r.body.error.code]).toEqual([404, 'account_not_found']);
    const longer = await sim.api('GET', `/accounts/acct_${'a'.repeat(500)}/balances`);
    expect([longer.status, longer.body.error.code, longer.body.error.param]).toEqual([400, 'invalid_parameter', 'account_id']);
  });

  it('each plane serves its OpenAPI document, JSON with its exact length', async () => {
    for (const url of [`${sim.base_url}/openapi.json`, `${sim.control_url}/openapi.json`]) {
      const r = await fetch(url);
      expect(r.status, url).toBe(200);
      expect(r.headers.get('content-type')).toBe('application/json; charset=utf-8');
      const text = await r.text();
      expect(Number(r.headers.get('content-length'))).toBe(Buffer.byteLength(text));
      expect((JSON.parse(text) as { openapi: string }).openapi).toBe('3.1.0');
    }
  });

  it('unknown paths: under /v1 and /_sim each plane’s 404 names the path, elsewhere the pointer to /v1', async () => {
    const root = sim.base_url.replace(/\/v1$/, '');
    const cases: Array<[string, string, string]> = [
      ['GET', `${sim.base_url}`, 'no route GET /v1/'],
      // The framework's 404 router is case-sensitive: an unknown path under another case of a prefix is outside.
      ['GET', `${root}/V1/nope`, 'no route GET /V1/nope; the API lives under /v1'],
      ['GET', `${sim.base_url}/nope/x?a=1`, 'no route GET /v1/nope/x'],
      ['DELETE', `${sim.control_url}/clock`, 'no control route DELETE /_sim/clock'],
      ['GET', `${root}/v2/accounts?x=1`, 'no route GET /v2/accounts; the API lives under /v1'],
      ['GET', `${root}/v1x/accounts`, 'no route GET /v1x/accounts; the API lives under /v1'],
      ['POST', `${root}/`, 'no route POST /; the API lives under /v1'],
    ];
    for (const [method, url, message] of cases) {
      const r = await fetch(url, { method, headers: { authorization: `Bearer ${sim.api_key}` } });
      const body = (await r.json()) as { request_id: string; error: { code: string; message: string } };
      expect(r.status, url).toBe(404);
      expect(body.error, url).toMatchObject({ code: 'route_not_found', message });
      expect(body.request_id).toMatch(/^req_/);
    }
  });

  it('the readiness probe answers without a request id, any case, no-store', async () => {
    const r = await fetch(sim.control_url.replace('/_sim', '/_SIM/Health'));
    expect(r.status).toBe(200);
    expect(r.headers.get('cache-control')).toBe('no-store');
    expect(await r.json()).toEqual({ status: 'ok', version: expect.any(String) });
  });
});

describe('order of the steps', () => {
  let sim: TestSim;
  const journal = join(mkdtempSync(join(tmpdir(), 'swapsim-planes-')), 'run.jsonl');
  beforeAll(async () => {
    sim = await startTestSim({ journal_path: journal, control_token: 'tok' });
  });
  afterAll(() => sim.close());

  const control = (method: string, path: string, init: { token?: boolean; body?: string } = {}) =>
    fetch(sim.control_url + path, {
      method,
      headers: {
        ...(init.token ? { authorization: 'Bearer tok' } : {}),
        ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      body: init.body,
    }).then(async (r) => ({ status: r.status, body: (await r.json()) as { request_id?: string; error?: { code: string } } }));

  it('the probe is answered before the gate and is no input; the gate answers before a 404; a body failure before the gate', async () => {
    expect(await control('GET', '/health')).toMatchObject({ status: 200, body: { status: 'ok' } });
    expect((await control('GET', '/nope')).body.error?.code).toBe('unauthorized');
    expect((await control('GET', '/nope', { token: true })).body.error?.code).toBe('route_not_found');
    expect((await control('POST', '/clock/advance', { body: '{nope' })).body.error?.code).toBe('invalid_parameter');
    expect((await control('POST', '/clock/advance', { body: '{"ms":1000}' })).body.error?.code).toBe('unauthorized');
    expect((await control('POST', '/clock/advance', { token: true, body: '{"ms":1000}' })).status).toBe(200);
    const lines = readFileSync(journal, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { kind: string; url?: string; body_error?: string | null });
    const requests = lines.filter((l) => l.kind === 'request');
    // The probe is not there; everything else is, in order, the malformed body by its type.
    expect(requests.map((l) => l.url)).toEqual([
      '/_sim/nope',
      '/_sim/nope',
      '/_sim/clock/advance',
      '/_sim/clock/advance',
      '/_sim/clock/advance',
    ]);
    expect(requests.map((l) => l.body_error)).toEqual([null, null, 'entity.parse.failed', null, null]);
  });

  it('requests are journaled in the order they take effect (a slow body after a quick one), and replay', async () => {
    const head = (n: number) =>
      `POST /v1/accounts HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${sim.api_key}\r\nIdempotency-Key: order-${n}\r\nContent-Type: application/json\r\nContent-Length: 20\r\nConnection: close\r\n\r\n`;
    const slow = connect(sim.running.port, '127.0.0.1');
    let slowAnswer = '';
    slow.on('data', (d) => (slowAnswer += d));
    const slowClosed = new Promise((r) => slow.on('close', r));
    slow.write(`${head(1)}{"label":"s`);
    // The quick one arrives second and completes first: it takes effect first.
    const quick = await sim.api('POST', '/accounts', { body: { label: 'quick' }, idem: 'order-2' });
    expect(quick.status).toBe(200);
    slow.end('low----"}');
    await slowClosed;
    expect(slowAnswer).toMatch(/^HTTP\/1\.1 200/);
    const requests = readFileSync(journal, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { kind: string; headers?: Record<string, string> })
      .filter((l) => l.kind === 'request' && l.headers?.['idempotency-key']?.startsWith('order-'));
    expect(requests.map((l) => l.headers!['idempotency-key'])).toEqual(['order-2', 'order-1']);
    await sim.close();
    const report = await replayJournal(parseJournal(readFileSync(journal, 'utf8')), { verify: true });
    expect(report.mismatch).toBeNull();
    expect(report.diverged).toBeNull();
    expect(report.verified).toBe(7);
    sim = await startTestSim();
  });
});

describe('the pipeline’s observers', () => {
  it('see every IDEM write before the store and its answer after, and each authenticated answer, refusals included', async () => {
    const runtime = createRuntime({ seed: 'observers', seed_orgs: [{ api_keys: ['sk_test_observed'] }] });
    const seen: string[] = [];
    const answers: AnsweredRequest[] = [];
    const spy: RequestObserver = {
      idempotentWrite: (_w, org_id) => seen.push(`write ${org_id.slice(0, 4)}`),
      idempotentAnswer: (_w, _o, key, _p, reply) => seen.push(`answer ${key} ${reply.status}`),
      answered: (a) => {
        seen.push(`answered ${a.status}`);
        answers.push(a);
      },
    };
    let runs = 0;
    const route = defineRoute({
      method: 'post',
      path: '/things/:thing_id',
      summary: 'a thing',
      tag: 't',
      idempotent: true,
      params: z.object({ thing_id: z.string() }),
      query: z.object({ n: z.string().optional() }),
      handler: ({ params }) => {
        runs++;
        if (params.thing_id === 'bad') throw new ApiError('invalid_parameter', 'bad thing', { param: 'thing_id' });
        return { body: { thing: params.thing_id, runs } };
      },
    });
    const app = frontDoor({
      planes: [
        { prefix: '/v1', routes: [route], control: false, document: () => ({}), notFound: () => new ApiError('route_not_found', 'none') },
      ],
      serving: { limiter: runtime.limiter, resources: [], observers: [spy] },
      probes: [],
      outside: () => new ApiError('route_not_found', 'outside'),
      begin: requestJournal(runtime),
      onBug: () => undefined,
      server: {},
      clientError: (_e, socket) => socket.destroy(),
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/v1/things`;
      const post = (id: string, key: string | null) =>
        fetch(`${url}/${id}?n=1&stray=2`, {
          method: 'POST',
          headers: {
            authorization: 'Bearer sk_test_observed',
            'content-type': 'application/json',
            ...(key ? { 'idempotency-key': key } : {}),
          },
          body: '{"a":1}',
        });
      expect((await post('a', 'k1')).status).toBe(200);
      expect((await post('a', 'k1')).status).toBe(200);
      expect((await post('bad', 'k2')).status).toBe(400);
      expect((await post('a', null)).status).toBe(400);
      expect(runs).toBe(2);
      expect(seen).toEqual([
        'write org_',
        'answer k1 200',
        'answered 200',
        'write org_',
        'answer k1 200',
        'answered 200',
        'write org_',
        'answer k2 400',
        'answered 400',
        'answered 400',
      ]);
      expect(answers[0]).toMatchObject({
        method: 'POST',
        path: '/things/a',
        idempotency_key: 'k1',
        lost: false,
        body: { a: 1 },
        query: { n: '1', stray: '2' },
      });
      expect(answers[0].route).toBe(route);
      expect(answers[0].body_fingerprint).toMatch(/^[0-9a-f]{64}$/);
      expect(answers[3]).toMatchObject({ status: 400, idempotency_key: null, reply: { body: { error: { code: 'parameter_missing' } } } });
    } finally {
      await app.close();
    }
  });
});

describe('answers of one turn leave together', () => {
  /** Sends `n` pipelined requests in one write on one connection; resolves with the raw text of every answer. */
  const pipelined = (port: number, request: string, n: number): Promise<string> =>
    new Promise((resolve, reject) => {
      const socket = connect(port, '127.0.0.1');
      let text = '';
      socket.on('data', (d) => {
        text += d;
        if ((text.match(/HTTP\/1\.1 \d{3} /g) ?? []).length === n && text.endsWith('}')) socket.end();
      });
      socket.on('close', () => resolve(text));
      socket.on('error', reject);
      socket.write(request.repeat(n));
    });

  it('holds every reply of a turn until it ends, then writes each, in order', async () => {
    const app = Fastify();
    coalesceWrites(app);
    const writtenAtSend: boolean[] = [];
    let n = 0;
    app.get('/', (_request, reply) => {
      reply.send({ n: ++n });
      writtenAtSend.push(reply.raw.writableEnded);
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const text = await pipelined((app.server.address() as AddressInfo).port, 'GET / HTTP/1.1\r\nHost: x\r\n\r\n', 3);
      expect([...text.matchAll(/\{"n":(\d)\}/g)].map((m) => m[1])).toEqual(['1', '2', '3']);
      expect(writtenAtSend).toEqual([false, false, false]);
    } finally {
      await app.close();
    }
  });

  it('a reply whose write fails once held is still answered (500), and the next one too', async () => {
    const app = Fastify();
    coalesceWrites(app);
    app.get('/bad', (_request, reply) => {
      reply.header('x-bad', 'a\nb').send('never');
    });
    app.get('/good', (_request, reply) => {
      reply.send('fine');
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
      const bad = await fetch(`${base}/bad`);
      expect(bad.status).toBe(500);
      expect(await bad.text()).not.toContain('never');
      expect(await (await fetch(`${base}/good`)).text()).toBe('fine');
    } finally {
      await app.close();
    }
  });

  it('swapsim answers every pipelined read, each with its own request id', async () => {
    const sim = await startTestSim();
    try {
      const account_id = await readyAccount(sim);
      const head = `GET /v1/accounts/${account_id}/balances HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${sim.api_key}\r\n\r\n`;
      const text = await pipelined(sim.running.port, head, 4);
      expect(text.match(/HTTP\/1\.1 \d{3}/g)).toEqual(Array(4).fill('HTTP/1.1 200'));
      const ids = [...text.matchAll(/"request_id":"(req_[0-9a-z]+)"/g)].map((m) => m[1]);
      expect(ids).toHaveLength(4);
      expect(new Set(ids).size).toBe(4);
    } finally {
      await sim.close();
    }
  });
});
