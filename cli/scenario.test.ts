// `swapsim scenario` as a user runs it: a real process. list; run of a passing scenario (timeline, report
// JSON, exit 0), of the canary (exit 1), of an unknown name (close names, exit 2); and a run against a
// separately started `swapsim serve --clock virtual` through --base-url/--control-url.
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runSwapsim, startServe } from '../fake-provider/testing/swapsim-cli.ts';
import type { ScenarioBatch } from '../reports/types.ts';

const REPORTS = mkdtempSync(join(tmpdir(), 'swapsim-scenario-cli-'));

const swapsim = (args: string[]) => runSwapsim(args, { SWAPSIM_REPORTS_DIR: REPORTS });

const reportOf = (err: string): ScenarioBatch => JSON.parse(readFileSync(/report: (\S+)/.exec(err)![1], 'utf8'));

const servers: ChildProcess[] = [];
afterAll(() => {
  for (const s of servers) s.kill('SIGTERM');
});

describe('swapsim scenario', () => {
  it('list prints every scenario with its tags and summary', async () => {
    const { code, out } = await swapsim(['scenario', 'list']);
    expect(code).toBe(0);
    expect(out).toMatch(/^trade-exact-in\s+trade,rfq,happy-path\s+Firm exact_in RFQ/m);
    expect(out).toMatch(/^canary-must-fail\s+canary\s+/m);
    expect(out).toMatch(/^4\d scenarios$/m);
  });

  it('run of a passing scenario prints its timeline, writes the batch JSON and exits 0', async () => {
    const { code, out, err } = await swapsim(['scenario', 'run', 'zap-credit-funded', '--seed', '3']);
    expect(code, err).toBe(0);
    expect(out).toMatch(/zap zap_\w+\s+executing → filled\s+on FILL/);
    expect(out).toMatch(/event zap\.settled/);
    expect(out).toMatch(/ok\s+invariants hold/);
    expect(out).toMatch(/PASS zap-credit-funded/);
    expect(out).toMatch(/^1 passed, 0 failed$/m);
    const batch = reportOf(err);
    expect(batch).toMatchObject({ kind: 'scenario-batch', seed: '3', passed: 1, failed: 0 });
    expect(batch.runs[0]).toMatchObject({ kind: 'scenario', name: 'zap-credit-funded', ok: true });
    expect(batch.runs[0].timeline.some((e) => e.kind === 'event' && e.event_type === 'zap.settled')).toBe(true);
  });

  it('run of the canary exits 1 and names the failed expectation', async () => {
    const { code, out, err } = await swapsim(['scenario', 'run', 'canary-must-fail', '--quiet']);
    expect(code).toBe(1);
    expect(out).toMatch(/FAIL canary-must-fail: expectation failed: canary: one deposit of 1 ETH is credited twice/);
    expect(reportOf(err)).toMatchObject({ passed: 0, failed: 1 });
  });

  it('--quiet prints one verdict line per scenario, with no blank line between them', async () => {
    const { code, out } = await swapsim(['scenario', 'run', 'trade-exact-in', 'zap-credit-funded', '--quiet']);
    expect(code).toBe(0);
    const lines = out.split('\n');
    expect(lines.filter((l) => /^(PASS|FAIL) /.test(l))).toHaveLength(2);
    expect(lines.slice(0, 2).every((l) => l.trim() !== '')).toBe(true);
  });

  it('an unknown name exits 2 and lists the close names', async () => {
    const { code, err } = await swapsim(['scenario', 'run', 'trade-exat-in']);
    expect(code).toBe(2);
    expect(err).toMatch(/unknown scenario 'trade-exat-in'; did you mean: trade-exact-in, trade-exact-out\?/);
    const bare = await swapsim(['scenario', 'run']);
    expect(bare.code).toBe(2);
    expect(bare.err).toMatch(/--all/);
  });

  it('runs against a separately started swapsim (--base-url/--control-url), in a fresh organization', async () => {
    const served = await startServe(['--port', '0', '--clock', 'virtual', '--api-key', 'sk_cli_scenario']);
    servers.push(served.child);
    const urls = { base: served.base_url, control: served.control_url };
    const { code, out, err } = await swapsim([
      'scenario',
      'run',
      'cancel-credit',
      'deposit-flagged-high-risk-score',
      '--base-url',
      urls.base,
      '--api-key',
      'sk_cli_scenario',
      '--control-url',
      urls.control,
    ]);
    expect(code, out + err).toBe(0);
    expect(out).toMatch(/^2 passed, 0 failed$/m);
    const batch = reportOf(err);
    expect(batch.seed).toBe(`remote:${urls.base}`);
    expect(batch.runs.every((r) => r.timeline.some((e) => e.kind === 'transition' && e.entity_type === 'account'))).toBe(true);
    // Each scenario ran in its own organization on that server.
    const orgs = ((await (await fetch(`${urls.control}/organizations`)).json()) as { organizations: unknown[] }).organizations;
    expect(orgs).toHaveLength(3);
    const wrongKey = await swapsim(['scenario', 'run', 'cancel-credit', '--base-url', urls.base, '--api-key', 'sk_wrong']);
    expect(wrongKey.code).toBe(2);
    expect(wrongKey.err).toMatch(/answered 401/);
  });
});
