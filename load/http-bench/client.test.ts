// The load generators' process protocol (client.ts): a child's result line resolves, its measuring line is
// reported, a failing child rejects with its stderr, and a batch child really runs as SCHED_BATCH.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { batchAvailable, ownSched, runClient } from './client.ts';

const dir = mkdtempSync(join(tmpdir(), 'swapsim-client-'));
const script = (name: string, body: string): string => {
  const path = join(dir, name);
  writeFileSync(path, body);
  return path;
};
const CLIENT = JSON.stringify(new URL('./client.ts', import.meta.url).pathname);

describe('runClient', () => {
  it('resolves with the result line, after the measuring line, and the child runs as scheduled', async () => {
    const child = script(
      'ok.ts',
      `import { ownSched, say } from ${CLIENT};\nsay({ measuring: true });\nsay({ result: { sched: ownSched(), env: process.env.X } });\n`,
    );
    const seen: string[] = [];
    const batch = await runClient<{ sched: string; env: string }>(child, { X: 'y' }, { sched: 'batch' }, () => seen.push('measuring'));
    expect(seen).toEqual(['measuring']);
    expect(batch).toEqual({ sched: batchAvailable() ? 'batch' : 'normal', env: 'y' });
    expect((await runClient<{ sched: string }>(child, {}, { sched: 'normal' })).sched).toBe('normal');
    expect(ownSched()).toBe('normal');
  }, 30_000);

  it('rejects when the child fails before its result', async () => {
    await expect(runClient(script('throws.ts', `throw new Error('no server');\n`), {}, { sched: 'batch' })).rejects.toThrow(
      /exited 1: .*no server/s,
    );
  }, 30_000);
});
