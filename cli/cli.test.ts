// The `swapsim serve` command as a user runs it: a real process, its printed URLs and key, a journal of
// inputs, and a graceful exit on SIGTERM.
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runSwapsim, startServe } from '../fake-provider/testing/swapsim-cli.ts';
import { startReceiver } from '../scenarios/dsl/webhook-receiver.ts';


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
    // The run ends with SIGTERM: a shutdown line (requests a delay_ms fault held would be answered 503 there).
    expect(lines.map((l) => l.kind)).toEqual(['header', 'fact', 'request', 'response', 'shutdown']);
    expect(lines[0]).toMatchObject({ kind: 'header', version: 2, seed: '7', clock: 'virtual' });
    // No --secret-seed: a random one per run, kept in the header (so the journal is owner-only).
    expect(lines[0].secret_seed).toMatch(/^[0-9a-f]{64}$/);
    expect(statSync(journal).mode & 0o777).toBe(0o600);
    // Where the server listened: a replay judges webhook URLs against it (its own port differs).
    expect(lines[1]).toMatchObject({ kind: 'fact', what: 'endpoint', key: 'server', value: { host: '127.0.0.1', port: Number(new URL(base).port) } });
    expect(lines[2]).toMatchObject({ kind: 'request', method: 'POST', url: '/v1/accounts', body: '{"label":"cli"}', headers: { 'idempotency-key': 'k1' } });
    expect(lines[3]).toMatchObject({ kind: 'response', request_id: lines[2].request_id, status: 200 });
  });

  it('SIGTERM finishes while a settle waits on a receiver that never answers; a second signal exits at once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'swapsim-cli-'));
    const profile = join(dir, 'slow.json');
    writeFileSync(profile, JSON.stringify({ webhook_timeout_ms: 600_000 }));
    const rx = await startReceiver();
    rx.answer = () => 'hang';
    // A server whose settle waits on the hanging receiver (10 minutes of timeout).
    const hung = async () => {
      const served = await startServe(['--port', '0', '--clock', 'virtual', '--api-key', 'sk_cli_hang', '--profile', profile]);
      const auth = { authorization: 'Bearer sk_cli_hang', 'content-type': 'application/json' };
      expect((await fetch(`${served.base_url}/webhooks`, { method: 'POST', headers: auth, body: JSON.stringify({ url: rx.url }) })).status).toBe(200);
      const seen = rx.received.length;
      expect((await fetch(`${served.base_url}/accounts`, { method: 'POST', headers: { ...auth, 'idempotency-key': 'a1' }, body: '{}' })).status).toBe(200);
      void fetch(`${served.control_url}/clock/settle`, { method: 'POST', headers: auth, body: '{}' }).catch(() => undefined);
      for (let i = 0; i < 200 && rx.received.length === seen; i++) await new Promise((r) => setTimeout(r, 50));
      expect(rx.received.length).toBeGreaterThan(seen);
      return served;
    };
    const within = (p: Promise<number | null>) => Promise.race([p, new Promise((r) => setTimeout(() => r('still running'), 30_000))]);
    try {
      const served = await hung();
      served.child.kill('SIGTERM');
      expect(await within(served.exited)).toBe(0);
      const again = await hung();
      again.child.kill('SIGTERM');
      await new Promise((r) => setTimeout(r, 100));
      again.child.kill('SIGINT');
      expect(await within(again.exited)).toBe(1);
      expect(again.out()).toContain('SIGINT again, exiting now');
    } finally {
      await rx.close();
    }
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
