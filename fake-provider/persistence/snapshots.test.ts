// Snapshots (snapshots.ts, routes.ts): a world restored from a snapshot answers the requests that followed the
// snapshot byte for byte as the world did then (request ids included); a journal holding restores replays as
// one run; a server without a journal takes and restores them too; an unknown or deleted snapshot is refused in
// the envelope. A busy world's copy: snapshot-copy.test.ts.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { closeAfterEach, startTestSim, type TestSim } from '../testing/harness.ts';
import { ARB_ETH, ARB_USDC, funded, pinPrices } from '../testing/fixtures/zaps.ts';
import { firmQuote } from '../testing/flows.ts';
import { readJournal } from './reopen.ts';
import { replayJournal } from '../replay/run.ts';
import { createSim } from '../../lib/sim.ts';

const opened = closeAfterEach(afterEach);

/** The requests after the snapshot: reads, writes with keys, a trade, clock moves. Returns each answer's bytes. */
async function script(sim: TestSim, account_id: string, credit_id: string, destination_id: string): Promise<string[]> {
  const answers: string[] = [];
  const keep = async (p: Promise<{ status: number; body: unknown }>) => {
    const r = await p;
    answers.push(`${r.status} ${JSON.stringify(r.body)}`);
    return r;
  };
  for (let i = 0; i < 15; i++) {
    await keep(sim.api('POST', '/accounts', { body: { label: `after-${i}` }, idem: `after-${i}` }));
    await keep(sim.api('GET', `/accounts/${account_id}/balances`));
  }
  const { quote_id } = await firmQuote(sim, {
    account_id,
    credit_id,
    destination_id,
    from: ARB_USDC,
    to: ARB_ETH,
    amount_in_atoms: '20000000',
  });
  await keep(sim.api('POST', `/quotes/${quote_id}/accept`, { body: { slippage_bps: '50' }, idem: 'accept-1' }));
  await keep(sim.control('POST', '/clock/settle', {}));
  await keep(sim.api('GET', `/events?account_id=${account_id}&limit=100`));
  await keep(sim.api('GET', `/accounts/${account_id}/balances`));
  return answers;
}

describe('snapshots', () => {
  it('a restored world answers the next requests byte for byte as the world did after the snapshot, and the journal replays', async () => {
    const journal_path = join(mkdtempSync(join(tmpdir(), 'swapsim-snap-')), 'run.jsonl');
    const sim = await startTestSim({ seed: 'snapshots', journal_path });
    let closed = false;
    try {
      await pinPrices(sim);
      const f = await funded(sim);
      const snap = await sim.control('POST', '/snapshots');
      expect(snap.status, JSON.stringify(snap.body)).toBe(200);
      const first = await script(sim, f.account_id, f.credit_id, f.destination_id);
      expect(first.filter((a) => a.startsWith('200 '))).toHaveLength(first.length);
      const restored = await sim.control('POST', `/snapshots/${snap.body.snapshot_id}/restore`);
      expect(restored.status, JSON.stringify(restored.body)).toBe(200);
      expect(restored.body.clock.now_ms).toBe(snap.body.snapshot.created_at_ms);
      const again = await script(sim, f.account_id, f.credit_id, f.destination_id);
      expect(again).toEqual(first);
      // Snapshots taken later than the one restored are gone with the world that held them; it stays.
      expect((await sim.control('GET', '/snapshots')).body.snapshots.map((s: any) => s.snapshot_id)).toEqual([snap.body.snapshot_id]);
      await sim.close();
      closed = true;
      const report = await replayJournal(readJournal(journal_path), { verify: true });
      expect(report.mismatch).toBeNull();
      expect(report.diverged).toBeNull();
      expect(report.verified).toBeGreaterThan(2 * first.length);
    } finally {
      if (!closed) await sim.close();
    }
  }, 60_000);

  it('needs no journal; refuses an unknown or deleted snapshot (404) and a body with fields (400), changing nothing', async () => {
    const bare = opened(await startTestSim({ seed: 'snap-bare' }));
    const taken = await bare.control('POST', '/snapshots');
    expect(taken.status).toBe(200);
    const label = async () => (await bare.api('GET', '/accounts')).body.accounts.map((a: any) => a.label);
    await bare.api('POST', '/accounts', { body: { label: 'after' } });
    expect(await label()).toEqual(['after']);
    expect((await bare.control('POST', `/snapshots/${taken.body.snapshot_id}/restore`)).status).toBe(200);
    expect(await label()).toEqual([]);
    const sim = opened(
      await startTestSim({ seed: 'snap-errors', journal_path: join(mkdtempSync(join(tmpdir(), 'swapsim-snap-')), 'run.jsonl') }),
    );
    expect((await sim.control('POST', '/snapshots/snap_nope/restore')).body.error).toMatchObject({
      code: 'not_found',
      param: 'snapshot_id',
    });
    const id = (await sim.control('POST', '/snapshots')).body.snapshot_id;
    const account = (await sim.api('POST', '/accounts', { body: { label: 'kept' } })).body.account.account_id;
    expect((await sim.control('DELETE', `/snapshots/${id}`)).status).toBe(200);
    expect((await sim.control('POST', `/snapshots/${id}/restore`)).status).toBe(404);
    expect((await sim.api('GET', `/accounts/${account}`)).status).toBe(200);
    expect((await sim.control('POST', '/snapshots', { when: 'now' })).status).toBe(400);
  }, 30_000);

  it('in the library: build a world once, restore it before each test', async () => {
    const sim = opened(
      await createSim({ seed: 'snap-lib', journal_path: join(mkdtempSync(join(tmpdir(), 'swapsim-snap-')), 'lib.jsonl') }),
    );
    const built = (await sim.api('POST', '/accounts', { body: { label: 'fixture' } })).body.account.account_id;
    const snapshot = await sim.snapshot();
    for (const label of ['test-1', 'test-2']) {
      await sim.restore(snapshot);
      const listed = await sim.api('GET', '/accounts');
      expect(listed.body.accounts.map((a) => a.account_id)).toEqual([built]);
      expect((await sim.api('POST', '/accounts', { body: { label } })).status).toBe(200);
    }
  }, 30_000);
  it('scoped to an organization with its own world, restores that world alone, and the journal replays', async () => {
    const journal_path = join(mkdtempSync(join(tmpdir(), 'swapsim-snap-org-')), 'run.jsonl');
    const sim = await startTestSim({ seed: 'snap-org', journal_path });
    let closed = false;
    try {
      const made = await sim.control('POST', '/organizations', { clock: { mode: 'virtual' } });
      expect(made.status, JSON.stringify(made.body)).toBe(200);
      const { organization_id, api_key: key } = made.body.organization;
      const labels = async (k?: string) =>
        (await sim.api('GET', '/accounts', k ? { key: k } : {})).body.accounts.map((a: { label: string }) => a.label).sort();
      await sim.api('POST', '/accounts', { key, body: { label: 'before' } });
      const snap = await sim.control('POST', `/snapshots?organization_id=${organization_id}`);
      expect(snap.status, JSON.stringify(snap.body)).toBe(200);
      // Not the server's: an unscoped list does not show it, an unscoped restore does not know it.
      expect((await sim.control('GET', '/snapshots')).body.snapshots).toEqual([]);
      expect((await sim.control('POST', `/snapshots/${snap.body.snapshot_id}/restore`)).status).toBe(404);
      const after = (await sim.api('POST', '/accounts', { key, body: { label: 'after' } })).body.account.account_id;
      await sim.api('POST', '/accounts', { body: { label: 'bystander' } });
      const restored = await sim.control('POST', `/snapshots/${snap.body.snapshot_id}/restore?organization_id=${organization_id}`);
      expect(restored.status, JSON.stringify(restored.body)).toBe(200);
      expect(await labels(key)).toEqual(['before']);
      // The default world's organization kept what it did meanwhile.
      expect(await labels()).toContain('bystander');
      // The restored world goes on as the organization's did right after the snapshot: the same next id.
      expect((await sim.api('POST', '/accounts', { key, body: { label: 'after' } })).body.account.account_id).toBe(after);
      await sim.close();
      closed = true;
      const report = await replayJournal(readJournal(journal_path), { verify: true });
      expect(report.mismatch).toBeNull();
      expect(report.diverged).toBeNull();
    } finally {
      if (!closed) await sim.close();
    }
  }, 60_000);
});
