// `swapsim serve --heap-growth-percent`: the bound reaches V8 (a process under it collects fully more often for the
// same churn), a value out of range is refused before the server starts, and the banner says what is in force.
// What the bound does to RSS is measured by the soak bench (docs/shared-server.md), never asserted here.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runSwapsim, startServe } from '../fake-provider/testing/swapsim-cli.ts';

const HEAP_TS = fileURLToPath(new URL('./heap.ts', import.meta.url));

/**
 * Full collections in a fresh process that bounds its growth at `percent`, keeps 20 MB live and churns objects
 * through the old generation (a ring that holds each long enough to be promoted).
 */
function majorCollections(percent: number): Promise<number> {
  const code = `
    import { PerformanceObserver, constants } from 'node:perf_hooks';
    import { boundHeapGrowth } from ${JSON.stringify(HEAP_TS)};
    boundHeapGrowth(${percent});
    let majors = 0;
    new PerformanceObserver((l) => { for (const e of l.getEntries()) if (e.detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) majors++; })
      .observe({ entryTypes: ['gc'] });
    const live = []; for (let i = 0; i < 200_000; i++) live.push(\`live \${i} \`.repeat(4));
    const ring = new Array(100_000);
    for (let i = 0; i < 1_000_000; i++) ring[i % ring.length] = { i, s: \`x\${i}\` };
    setTimeout(() => console.log(majors + (live.length > 0 ? 0 : 1)), 50);
  `;
  return new Promise((ok, fail) =>
    execFile(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], (err, out) =>
      err ? fail(err) : ok(Number(out.trim())),
    ),
  );
}

describe('the heap growth bound', () => {
  it('reaches V8: the same churn under a 10% bound takes more full collections than under V8 own factor', async () => {
    const [own, bounded] = await Promise.all([majorCollections(0), majorCollections(10)]);
    expect(bounded).toBeGreaterThan(own);
  });

  it('serve refuses a value out of range before starting, and its banner says the bound in force', async () => {
    const bad = await runSwapsim(['serve', '--port', '0', '--heap-growth-percent', '1001']);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('--heap-growth-percent: heap growth percent 1001: an integer 0-1000');
    const served = await startServe(['--port', '0', '--clock', 'virtual', '--heap-growth-percent', '25']);
    try {
      await expect.poll(() => served.out()).toContain('heap growth:  at most 25% past the live heap');
    } finally {
      served.child.kill('SIGTERM');
      await served.exited;
    }
  });
});
