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
    expect(lines.map((l) => l.kind)).toEqual(['header', 'fact', 'request', 'response']);
    expect(lines[0]).toMatchObject({ kind: 'header', version: 1, seed: '7', clock: 'virtual' });
    // Where the server listened: a replay judges webhook URLs against it (its own port differs).
    expect(lines[1]).toMatchObject({ kind: 'fact', what: 'endpoint', key: 'server', value: { host: '127.0.0.1', port: Number(new URL(base).port) } });
    expect(lines[2]).toMatchObject({ kind: 'request', method: 'POST', url: '/v1/accounts', body: '{"label":"cli"}', headers: { 'idempotency-key': 'k1' } });
    expect(lines[3]).toMatchObject({ kind: 'response', request_id: lines[2].request_id, status: 200 });
  });

  it('refuses bad options with a clear message', async () => {
    const { code, err } = await runSwapsim(['serve', '--clock', 'sideways']);
    expect(code).not.toBe(0);
    expect(err).toMatch(/sideways/);
  });
});
