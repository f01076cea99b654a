// Determinism: the same seed and the same inputs give the same bytes out — every response body, every event,
// every transition, every delivery body (not `Svc-Timestamp`: wall time) — hashed and compared across two fresh
// servers; a different seed differs.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { startTestSim } from './testing/harness.ts';
import { startReceiver } from '../scenarios/dsl/webhook-receiver.ts';

async function run(seed: string, secret_seed: string): Promise<{ hash: string; events: number; transitions: number }> {
  const sim = await startTestSim({ seed, secret_seed });
  const receiver = await startReceiver();
  const bodies: unknown[] = [];
  const api = async (method: string, path: string, body?: unknown) => {
    const r = await sim.api(method, path, { body, idem: method === 'POST' ? `k-${bodies.length}` : undefined });
    bodies.push([method, path, r.status, r.body]);
    return r.body;
  };
  const control = async (method: string, path: string, body?: unknown) => {
    const r = await sim.control(method, path, body);
    bodies.push([method, path, r.status, r.body]);
    return r.body;
  };
  try {
    const hook = await api('POST', '/webhooks', { url: receiver.url });
    receiver.secret = hook.webhook.secret;
    const acct = (await api('POST', '/accounts', { label: 'det' })).account.account_id;
    await control('POST', '/clock/advance', { ms: 10_000 });
    const eth = (await api('POST', `/accounts/${acct}/deposit-addresses`, { asset_key: 'native.evm:1' })).deposit_address;
    const btc = (await api('POST', `/accounts/${acct}/deposit-addresses`, { asset_key: 'native.btc' })).deposit_address;
    await control('POST', '/deposits', { deposit_address_id: eth.deposit_address_id, atoms: '1500000000000000000' });
    await control('POST', '/screening/addresses', {
      address: 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4',
      flag_reason: 'mixer_association',
    });
    await control('POST', '/deposits', {
      deposit_address_id: btc.deposit_address_id,
      atoms: '250000',
      source_address: 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4',
    });
    const dest = (
      await api('POST', `/accounts/${acct}/destinations`, {
        asset_key: 'native.evm:1',
        address: '0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf',
      })
    ).destination;
    await control('POST', `/destinations/${dest.destination_id}/suspend`, { reason: 'delta screening' });
    await control('POST', '/clock/settle', {});
    await api('GET', `/accounts/${acct}/balances`);
    await api('GET', `/accounts/${acct}/credits`);
    await api('GET', '/events?limit=100');
    await api('GET', `/webhooks/${hook.webhook.webhook_id}/deliveries?limit=100`);
    const world = sim.running.runtime.world;
    // The receiver's port is the one input that differs between runs: mask it.
    const mask = (text: string): string => text.split(receiver.url).join('<receiver>');
    const hash = createHash('sha256')
      .update(mask(JSON.stringify(bodies)))
      .update(JSON.stringify(world.events.all.map((e) => e.envelope)))
      .update(JSON.stringify(world.transitions.records))
      .update(JSON.stringify(receiver.received.map((r) => [r.delivery_id, r.signature_valid, r.raw])))
      .digest('hex');
    return { hash, events: world.events.all.length, transitions: world.transitions.records.length };
  } finally {
    await sim.close();
    await receiver.close();
  }
}

describe('determinism', () => {
  it('same seed, secret seed and inputs → identical responses, events and transitions; another seed differs', async () => {
    const a = await run('42', 's1');
    const b = await run('42', 's1');
    const c = await run('43', 's1');
    expect(a.events).toBeGreaterThan(10);
    expect(a.transitions).toBeGreaterThan(10);
    expect(b.hash).toBe(a.hash);
    expect(c.hash).not.toBe(a.hash);
    // Another secret seed changes the webhook secret (so its signatures) and nothing that follows from the seed.
    const d = await run('42', 's2');
    expect(d.hash).not.toBe(a.hash);
    expect(d.events).toBe(a.events);
  });
});
