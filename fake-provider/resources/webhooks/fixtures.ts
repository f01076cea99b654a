// Test-only helpers for the webhook suites: receivers closed after the file, and a fresh organization with a
// webhook pointing at a fresh receiver that knows its secret (plus the org's api and a direct publisher).
import { expect } from 'vitest';
import type { TestSim } from '../../testing/harness.ts';
import { publish } from '../../engine/index.ts';
import { startReceiver, type Receiver } from '../../../scenarios/dsl/webhook-receiver.ts';

export function webhookFixtures(sim: () => TestSim) {
  const receivers: Receiver[] = [];
  /** Stamps arrivals with the sim clock (`received_at_ms`): a delivery's `Svc-Timestamp` is wall time. */
  async function receiver(): Promise<Receiver> {
    const r = await startReceiver('', 'Svc', () => sim().running.runtime.world.sim.now_ms());
    receivers.push(r);
    return r;
  }
  /** A fresh org with a webhook pointing at a fresh receiver that knows the secret. */
  async function setup(s: TestSim = sim()) {
    const org = await s.newOrg();
    const rx = await receiver();
    const created = await s.api('POST', '/webhooks', { key: org.api_key, body: { url: rx.url } });
    expect(created.status).toBe(200);
    rx.secret = created.body.webhook.secret;
    const world = () => s.running.runtime.world;
    return {
      org,
      rx,
      webhook: created.body.webhook,
      api: (method: string, path: string, body?: unknown) => s.api(method, path, { key: org.api_key, body }),
      emit: (type: string, data: Record<string, unknown> = {}, account_id = 'acct_x') => publish(world(), org.organization_id, account_id, type, data).envelope,
    };
  }
  const closeReceivers = async (): Promise<void> => {
    await Promise.all(receivers.splice(0).map((r) => r.close()));
  };
  return { receivers, receiver, setup, closeReceivers };
}
