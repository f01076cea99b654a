// Request bodies must be `Content-Type: application/json` (the spec's body format), over a real server: any
// other type (or none) with a body is 415 unsupported_media_type and changes nothing, on /v1 and /_sim alike;
// parameters and case are accepted; a request without a body is not held to a type; a journaled 415 replays.
import { mkdtempSync, readFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSim, type TestSim } from '../testing/harness.ts';
import { parseJournal, replayJournal } from '../replay/run.ts';

let sim: TestSim;
const journal = join(mkdtempSync(join(tmpdir(), 'swapsim-ctype-')), 'run.jsonl');
beforeAll(async () => {
  sim = await startTestSim({ journal_path: journal });
});
afterAll(() => sim.close());

const accounts = async (): Promise<number> => (await sim.api('GET', '/accounts?limit=100')).body.accounts.length;

describe('Content-Type of request bodies', () => {
  it('refuses a JSON body sent as text/plain, a form or with no type: 415 unsupported_media_type, nothing created', async () => {
    const before = await accounts();
    for (const type of [
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/jsonp',
      'application/merge-patch+json',
      null,
    ]) {
      const headers: Record<string, string> = type === null ? {} : { 'content-type': type };
      // The harness adds application/json only when no content-type is given: send raw bytes for "none".
      const r =
        type === null
          ? await fetch(`${sim.base_url}/accounts`, {
              method: 'POST',
              headers: { authorization: `Bearer ${sim.api_key}`, 'idempotency-key': 'ct-none' },
              body: new TextEncoder().encode('{"label":"x"}'),
            }).then(async (res) => ({ status: res.status, body: await res.json() }))
          : await sim.api('POST', '/accounts', { raw: '{"label":"x"}', headers, idem: `ct-${type}` });
      expect(r.status, String(type)).toBe(415);
      expect(r.body.error, String(type)).toMatchObject({ type: 'invalid_request', code: 'unsupported_media_type', param: 'Content-Type' });
      expect(r.body.error.request_id).toBe(r.body.request_id);
    }
    expect(await accounts()).toBe(before);
  });

  it('a refused request leaves its Idempotency-Key unused', async () => {
    const bad = await sim.api('POST', '/accounts', { raw: '{"label":"k"}', headers: { 'content-type': 'text/plain' }, idem: 'ct-reuse' });
    expect(bad.status).toBe(415);
    const good = await sim.api('POST', '/accounts', { body: { label: 'k' }, idem: 'ct-reuse' });
    expect(good.status).toBe(200);
    expect(good.body.account.label).toBe('k');
  });

  it('accepts application/json with parameters and in any case', async () => {
    for (const type of ['application/json', 'application/json; charset=utf-8', 'Application/JSON;charset=UTF-8', ' application/json ']) {
      const r = await sim.api('POST', '/accounts', { raw: '{"label":"ok"}', headers: { 'content-type': type } });
      expect(r.status, type).toBe(200);
    }
  });

  it('a charset other than UTF-8 stays 415', async () => {
    const r = await sim.api('POST', '/accounts', { raw: '{"label":"x"}', headers: { 'content-type': 'application/json; charset=latin1' } });
    expect(r.status).toBe(415);
    expect(r.body.error.code).toBe('unsupported_media_type');
  });

  it('the control plane is held to the same rule; a request without a body is not', async () => {
    const clock = (await sim.control('GET', '/clock')).body.clock.now_ms;
    const form = await fetch(`${sim.control_url}/clock/advance`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: '{"ms":60000}',
    });
    expect(form.status).toBe(415);
    expect(((await form.json()) as { error: { code: string } }).error.code).toBe('unsupported_media_type');
    expect((await sim.control('GET', '/clock')).body.clock.now_ms).toBe(clock);
    // fetch sends Content-Length: 0 and no type for a POST without a body: not a body to judge.
    const empty = await fetch(`${sim.control_url}/clock/settle`, { method: 'POST' });
    expect(empty.status).toBe(200);
    const get = await fetch(`${sim.base_url}/assets`, { headers: { authorization: `Bearer ${sim.api_key}`, 'content-type': 'text/html' } });
    expect(get.status).toBe(200);
  });

  it('a body sent with GET is not read nor judged: the route answers as without it', async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const headers = { authorization: `Bearer ${sim.api_key}`, 'content-type': 'text/plain', 'content-length': '5' };
      const r = request({ host: '127.0.0.1', port: sim.running.port, method: 'GET', path: '/v1/assets', headers }, (res) => {
        res.resume();
        resolve(res.statusCode!);
      });
      r.on('error', reject);
      r.end('hello');
    });
    expect(status).toBe(200);
  });

  it('a journaled 415 replays to the same answer', async () => {
    await sim.close();
    const report = await replayJournal(parseJournal(readFileSync(journal, 'utf8')), { verify: true });
    expect(report.mismatch).toBeNull();
    expect(report.diverged).toBeNull();
    expect(report.verified).toBeGreaterThan(10);
    sim = await startTestSim();
  });
});
