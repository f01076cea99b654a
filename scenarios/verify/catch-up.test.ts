// A batch's final check (lane.ts batchCatchUp): one POST /probe/sync for the batch, only once every run has joined
// or left, and each joined run's state read after it; a run ending without a final check never holds the others.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { batchCatchUp } from './lane.ts';

let app: Server | null = null;
afterEach(async () => {
  await new Promise((r) => (app ? app.close(r) : r(undefined)));
  app = null;
});

/** An app whose POST /probe/sync is logged (and answered `status`). */
async function fakeApp(log: string[], status = 200): Promise<string> {
  app = createServer((req, res) => {
    log.push(`${req.method} ${req.url}`);
    res.writeHead(status, { 'content-type': 'application/json' }).end('{}');
  });
  await new Promise<void>((r) => app!.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(app.address() as AddressInfo).port}`;
}

const tick = () => new Promise((r) => setTimeout(r, 20));

describe('batchCatchUp', () => {
  it('syncs once, after every run joined or left, then judges each joined run', async () => {
    const log: string[] = [];
    const s = { app_url: await fakeApp(log), slots: [], sync_supported: null };
    const catch_up = batchCatchUp(s, 3);
    const judge = (run: number) => async () => {
      log.push(`judge ${run}`);
      return null;
    };
    const first = catch_up.join(judge(1));
    await tick();
    expect(log).toEqual([]); // run 1 waits: two runs are still going
    catch_up.leave(); // run 2 ended with a finding of its own
    await tick();
    expect(log).toEqual([]);
    const third = catch_up.join(judge(3));
    expect(await Promise.all([first, third])).toEqual([null, null]);
    expect(log).toEqual(['POST /probe/sync', 'judge 1', 'judge 3']);
    expect(s.sync_supported).toBe(true);
  });

  it('gives each run its own finding, and a sync that fails to every joined run', async () => {
    const log: string[] = [];
    const s = { app_url: await fakeApp(log), slots: [], sync_supported: null };
    const catch_up = batchCatchUp(s, 2);
    const finding = { kind: 'state', headline: 'state mismatch' } as never;
    const results = await Promise.all([catch_up.join(async () => finding), catch_up.join(async () => null)]);
    expect(results).toEqual([finding, null]);
    expect(log).toEqual(['POST /probe/sync']);

    const failing = { app_url: await fakeApp([], 500), slots: [], sync_supported: null };
    const broken = batchCatchUp(failing, 2);
    const outcomes = await Promise.allSettled([broken.join(async () => null), broken.join(async () => null)]);
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected']);
  });

  it('does not sync when every run left', async () => {
    const log: string[] = [];
    const catch_up = batchCatchUp({ app_url: await fakeApp(log), slots: [], sync_supported: null }, 2);
    catch_up.leave();
    catch_up.leave();
    await tick();
    expect(log).toEqual([]);
  });
});
