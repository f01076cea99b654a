// The `swapsim serve` command as a user runs it: a real process, its printed URLs and key, a journal of
// inputs, and a graceful exit on SIGTERM.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const BIN = new URL('../bin/swapsim.js', import.meta.url).pathname;

describe('swapsim serve', () => {
  it('serves with the given key, journals inputs, and exits 0 on SIGTERM', async () => {
    const journal = join(mkdtempSync(join(tmpdir(), 'swapsim-cli-')), 'run.jsonl');
    const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--clock', 'virtual', '--seed', '7', '--api-key', 'sk_cli_test', '--journal', journal], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    const base = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no base URL printed: ${out}`)), 20_000);
      child.stdout.on('data', () => {
        const m = /base URL:\s+(\S+)/.exec(out);
        if (m && out.includes('API key')) {
          clearTimeout(timer);
          resolve(m[1]);
        }
      });
    });
    expect(out).toContain('sk_cli_test');
    const res = await fetch(`${base}/accounts`, { method: 'POST', headers: { authorization: 'Bearer sk_cli_test', 'idempotency-key': 'k1', 'content-type': 'application/json' }, body: '{"label":"cli"}' });
    expect(res.status).toBe(200);
    const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exit).toBe(0);
    const lines = readFileSync(journal, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.map((l) => l.kind)).toEqual(['header', 'request', 'response']);
    expect(lines[0]).toMatchObject({ kind: 'header', version: 1, seed: '7', clock: 'virtual' });
    expect(lines[1]).toMatchObject({ kind: 'request', method: 'POST', url: '/v1/accounts', body: '{"label":"cli"}', headers: { 'idempotency-key': 'k1' } });
    expect(lines[2]).toMatchObject({ kind: 'response', request_id: lines[1].request_id, status: 200 });
  });

  it('refuses bad options with a clear message', async () => {
    const child = spawn(process.execPath, [BIN, 'serve', '--clock', 'sideways'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).not.toBe(0);
    expect(err).toMatch(/sideways/);
  });
});
