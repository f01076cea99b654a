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
    const res = await fetch(`${base}/accounts`, {
      method: 'POST',
      headers: { authorization: 'Bearer sk_cli_test', 'idempotency-key': 'k1', 'content-type': 'application/json' },
      body: '{"label":"cli"}',
    });
    expect(res.status).toBe(200);
    served.child.kill('SIGTERM');
    expect(await served.exited).toBe(0);
    const lines = readFileSync(journal, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    // The run ends with SIGTERM: a shutdown line (requests a delay_ms fault held would be answered 503 there).
    expect(lines.map((l) => l.kind)).toEqual(['header', 'fact', 'request', 'response', 'shutdown']);
    expect(lines[0]).toMatchObject({ kind: 'header', version: 2, seed: '7', clock: 'virtual' });
    // No --secret-seed: a random one per run, kept in the header (so the journal is owner-only).
    expect(lines[0].secret_seed).toMatch(/^[0-9a-f]{64}$/);
    expect(statSync(journal).mode & 0o777).toBe(0o600);
    // Where the server listened: a replay judges webhook URLs against it (its own port differs).
    expect(lines[1]).toMatchObject({
      kind: 'fact',
      what: 'endpoint',
      key: 'server',
      value: { host: '127.0.0.1', port: Number(new URL(base).port) },
    });
    expect(lines[2]).toMatchObject({
      kind: 'request',
      method: 'POST',
      url: '/v1/accounts',
      body: '{"label":"cli"}',
      headers: { 'idempotency-key': 'k1' },
    });
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
      expect(
        (await fetch(`${served.base_url}/webhooks`, { method: 'POST', headers: auth, body: JSON.stringify({ url: rx.url }) })).status,
      ).toBe(200);
      const seen = rx.received.length;
      expect(
        (await fetch(`${served.base_url}/accounts`, { method: 'POST', headers: { ...auth, 'idempotency-key': 'a1' }, body: '{}' })).status,
      ).toBe(200);
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
      // The built package's OpenAPI document (500 once: its schemas were made before zod had `.openapi()`).
      const document = await fetch(`${served.base_url}/openapi.json`);
      expect(document.status).toBe(200);
      expect(Object.keys(((await document.json()) as { paths: object }).paths).length).toBeGreaterThan(30);
    } finally {
      served.child.kill('SIGTERM');
      expect(await served.exited).toBe(0);
    }
    // The refused /clock call is an input; the health probes are not.
    const urls = readFileSync(journal, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .filter((l) => l.kind === 'request')
      .map((l) => l.url);
    expect(urls).toEqual(['/_sim/clock', '/v1/openapi.json']);
  });

  it('refuses bad options with a clear message', async () => {
    const { code, err } = await runSwapsim(['serve', '--clock', 'sideways']);
    expect(code).toBe(2);
    expect(err).toMatch(/sideways/);
  });
});

describe('start-up errors: one line with the cause and the fix, exit 2, never a stack or the usage text', () => {
  const oneLine = (err: string): string[] =>
    err
      .trim()
      .split('\n')
      .filter((l) => l !== '(add --help for usage)');
  it('a port in use', async () => {
    const first = await startServe(['--port', '0', '--clock', 'virtual']);
    try {
      const port = new URL(first.base_url).port;
      const { code, err, out } = await runSwapsim(['serve', '--port', port, '--clock', 'virtual']);
      expect(code).toBe(2);
      expect(oneLine(err)).toEqual([
        `swapsim serve: port ${port} on 127.0.0.1 is in use (another swapsim or \`npm start\`?); stop that process or pick another port with --port (0: any free port)`,
      ]);
      expect(out).toBe('');
    } finally {
      first.child.kill('SIGTERM');
      await first.exited;
    }
  });

  it.each([
    [['--port', '99999'], /argument '99999' is invalid\. a port is a whole number from 0 to 65535/],
    [['--port', 'http'], /argument 'http' is invalid/],
    [['--seed', ''], /--seed must not be empty/],
    [
      ['--journal', '/no/such/folder/run.jsonl'],
      /^swapsim serve: --journal \/no\/such\/folder\/run\.jsonl: the folder \/no\/such\/folder does not exist; create it first/,
    ],
    [['--ready-file', '/no/such/folder/ready.json'], /^swapsim serve: --ready-file .*does not exist/],
    [['--host', '192.0.2.1'], /^swapsim serve: 192\.0\.2\.1 is not an address of this machine; use --host 127\.0\.0\.1/],
  ])('serve %j', async (args, message) => {
    const { code, err } = await runSwapsim(['serve', '--clock', 'virtual', '--port', '0', ...args]);
    expect(code).toBe(2);
    expect(oneLine(err)).toHaveLength(1);
    expect(oneLine(err)[0]).toMatch(message);
    expect(err).not.toMatch(/\n\s+at /);
  });

  it.each([
    [['serve', '--bogus']],
    [['nosuch']],
    [['scenario', 'run', 'no-such-scenario']],
    [['trigger', 'no-such-trigger']],
    [['replay']],
    [['verify']],
    [['report']],
    [['wait', '--timeout', 'soon']],
    [['listen', '--interval-ms', '1']],
    [['example-app', '--bug', 'no-such-bug']],
    [['example-app', '--style', 'sideways']],
  ])('usage error %j exits 2 with no usage text', async (args) => {
    const { code, err } = await runSwapsim(args);
    expect(code).toBe(2);
    expect(err).not.toMatch(/Usage:|Options:/);
    expect(err).not.toMatch(/\n\s+at /);
  });

  it('--version prints the package version and exits 0', async () => {
    const { code, out } = await runSwapsim(['--version']);
    expect(code).toBe(0);
    expect(out.trim()).toBe(JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version);
  });

  it('serve --help matches the behaviour: the default key, a journal started afresh', async () => {
    const { out } = await runSwapsim(['serve', '--help']);
    const flat = out.replace(/\s+/g, ' ');
    expect(flat).toContain('(repeatable) (default: sk_sim_demo)');
    expect(flat).not.toContain('default: []');
    expect(flat).toContain('(started afresh;');
  });
});

describe('swapsim serve --ready-file and swapsim wait', () => {
  it('the ready file appears once the server answers; wait returns 0 then, and 1 only after its timeout', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'swapsim-cli-'));
    const ready = join(dir, 'ready.json');
    // wait starts first and must not give up while the server is not there yet.
    const waiting = runSwapsim(['wait', '--ready-file', ready, '--timeout', '60s']);
    await new Promise((r) => setTimeout(r, 1_000));
    const served = await startServe(['--port', '0', '--clock', 'virtual', '--ready-file', ready]);
    try {
      const file = JSON.parse(readFileSync(ready, 'utf8'));
      expect(file).toEqual({
        base_url: served.base_url,
        control_url: served.control_url,
        port: Number(new URL(served.base_url).port),
        pid: served.child.pid,
      });
      expect((await fetch(`${file.control_url}/health`)).status).toBe(200);
      const waited = await waiting;
      expect(waited.code).toBe(0);
      expect(waited.out).toContain(`${served.control_url}/health answered`);
      const byUrl = await runSwapsim(['wait', '--url', `${served.control_url}/health`]);
      expect(byUrl.code).toBe(0);
    } finally {
      served.child.kill('SIGTERM');
      await served.exited;
    }
    const t0 = Date.now();
    const late = await runSwapsim(['wait', '--url', `${served.control_url}/health`, '--timeout', '2s']);
    expect(late.code).toBe(1);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(2_000);
    expect(late.err).toMatch(/^swapsim wait: no answer from .* after 2 s/);
  });

  it('SWAPSIM_PORT sets the port of serve and SWAPSIM_BASE_URL the URL wait polls', async () => {
    const probe = await startServe(['--port', '0', '--clock', 'virtual']);
    const port = new URL(probe.base_url).port;
    probe.child.kill('SIGTERM');
    await probe.exited;
    const { spawn } = await import('node:child_process');
    const { BIN } = await import('../fake-provider/testing/swapsim-cli.ts');
    const child = spawn(process.execPath, [BIN, 'serve', '--clock', 'virtual'], {
      env: { ...process.env, SWAPSIM_PORT: port },
      stdio: 'ignore',
    });
    try {
      const waited = await runSwapsim(['wait', '--timeout', '60s'], { SWAPSIM_BASE_URL: `http://127.0.0.1:${port}/v1` });
      expect(waited.code).toBe(0);
      expect(waited.out).toContain(`http://127.0.0.1:${port}/_sim/health answered`);
    } finally {
      child.kill('SIGTERM');
    }
  });
});

describe('bin/swapsim.js never builds at run time', () => {
  it('runs dist/cli.js as built: no esbuild, tsc or tsx is loaded', async () => {
    const code_lines = readFileSync(new URL('../bin/swapsim.js', import.meta.url), 'utf8')
      .split('\n')
      .filter((l) => !l.trim().startsWith('//'));
    expect(code_lines.join('\n')).not.toMatch(/build\.mjs|esbuild|execFile|spawn/);
    const { code, out } = await runSwapsim(['--version'], { NODE_DEBUG: 'module' });
    expect(code).toBe(0);
    expect(out).not.toMatch(/esbuild|typescript|tsx/);
  });
});
