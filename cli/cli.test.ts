// The `swapsim serve` command as a user runs it: a real process, its printed URLs and key, a journal of
// inputs, and a graceful exit on SIGTERM.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runSwapsim, startServe } from './testing.ts';


describe('swapsim serve', () => {
  it('serves with the given key, journals inputs, and exits 0 on SIGTERM', async () => {
    const journal = join(mkdtempSync(join(tmpdir(), 'swapsim-cli-')), 'run.jsonl');
    const served = await startServe(['--port', '0', '--clock', 'virtual', '--seed', '7', '--api-key', 'sk_cli_test', '--journal', journal]);
    const base = served.base_url;
    expect(served.out()).toContain('sk_cli_test');
    const res = await fetch(`${base}/accounts`, { method: 'POST', headers: { authorization: 'Bearer sk_cli_test', 'idempotency-key': 'k1', 'content-type': 'application/json' }, body: '{"label":"cli"}' });
    expect(res.status).toBe(200);
    served.child.kill('SIGTERM');
    expect(await served.exited).toBe(0);
    const lines = readFileSync(journal, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.map((l) => l.kind)).toEqual(['header', 'request', 'response']);
    expect(lines[0]).toMatchObject({ kind: 'header', version: 1, seed: '7', clock: 'virtual' });
    expect(lines[1]).toMatchObject({ kind: 'request', method: 'POST', url: '/v1/accounts', body: '{"label":"cli"}', headers: { 'idempotency-key': 'k1' } });
    expect(lines[2]).toMatchObject({ kind: 'response', request_id: lines[1].request_id, status: 200 });
  });

  it('answers GET /_sim/health as soon as it serves: without the control token, and never journaled', async () => {
    const journal = join(mkdtempSync(join(tmpdir(), 'swapsim-cli-')), 'run.jsonl');
    const served = await startServe(['--port', '0', '--clock', 'virtual', '--control-token', 'ct_secret', '--journal', journal]);
    try {
      const health = await fetch(`${served.control_url}/health`);
      expect(health.status).toBe(200);
      expect(health.headers.get('cache-control')).toBe('no-store');
      expect(await health.json()).toEqual({ status: 'ok', version: expect.stringMatching(/^\d+\.\d+\.\d+/) });
      // The rest of the control plane still wants the token.
      expect((await fetch(`${served.control_url}/clock`)).status).toBe(401);
      const polls = await Promise.all(Array.from({ length: 20 }, () => fetch(`${served.control_url}/health`).then((r) => r.status)));
      expect(polls).toEqual(Array(20).fill(200));
    } finally {
      served.child.kill('SIGTERM');
      expect(await served.exited).toBe(0);
    }
    // The refused /clock call is an input; the health probes are not.
    const urls = readFileSync(journal, 'utf8').trim().split('\n').map((l) => JSON.parse(l)).filter((l) => l.kind === 'request').map((l) => l.url);
    expect(urls).toEqual(['/_sim/clock']);
  });

  it('refuses bad options with a clear message', async () => {
    const { code, err } = await runSwapsim(['serve', '--clock', 'sideways']);
    expect(code).not.toBe(0);
    expect(err).toMatch(/sideways/);
  });
});
