// Deliveries due at one instant go out together across accounts, yet each account's stay in dispatch
// order on the wire, and every outcome is applied at that instant before time moves on.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { newWorld } from '../../app.ts';
import { createOrganization } from '../../organizations.ts';
import { publish } from '../../engine/index.ts';
import { createWebhook, deliveryStatus, webhookStore } from './model.ts';

interface Held {
  account_id: string;
  type: string;
  res: ServerResponse;
}

/** A receiver that holds account A's first request until B's has arrived: only concurrent sending gets past it. */
async function holdingReceiver() {
  const arrivals: string[] = [];
  const held: Held[] = [];
  const release = () => held.splice(0).forEach((h) => h.res.writeHead(200).end('ok'));
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req
      .on('data', (c) => (body += c))
      .on('end', () => {
        const e = JSON.parse(body) as { account_id: string; type: string };
        arrivals.push(`${e.account_id}:${e.type}`);
        held.push({ account_id: e.account_id, type: e.type, res });
        // A's first stays unanswered until B's first arrives; from then on everything is answered.
        if (arrivals.some((a) => a.startsWith('acct_b:'))) release();
      });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return {
    url,
    arrivals,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

let closing: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of closing) await c();
  closing = [];
});

describe('webhook deliveries at one instant', () => {
  it('go out concurrently across accounts, in order within an account, with outcomes applied before time moves', async () => {
    const receiver = await holdingReceiver();
    closing.push(receiver.close);
    const world = newWorld({ seed: 'webhook-concurrency', clock: 'virtual' });
    const org = createOrganization(world, { api_keys: ['sk_concurrency_0123'] });
    createWebhook(world, org, { url: receiver.url });
    const t0 = world.sim.now_ms();
    world.sim.scheduler.scheduleCall(t0 + 1_000, 'test.publish', () => {
      publish(world, org.organization_id, 'acct_a', 'test.a1', {});
      publish(world, org.organization_id, 'acct_a', 'test.a2', {});
      publish(world, org.organization_id, 'acct_b', 'test.b1', {});
    });
    let statusAtLaterTask: string[] = [];
    world.sim.scheduler.scheduleCall(t0 + 1_001, 'test.observe', () => {
      statusAtLaterTask = [...webhookStore(world).deliveries.values()].map(deliveryStatus);
    });
    await world.sim.scheduler.settle(60_000);

    // B's delivery arrived while A's first was held (so they were in flight together); A's second only after A's first.
    expect(receiver.arrivals).toEqual(['acct_a:test.a1', 'acct_b:test.b1', 'acct_a:test.a2']);
    expect(statusAtLaterTask).toEqual(['success', 'success', 'success']);
    const log = [...webhookStore(world).deliveries.values()].map((d) => d.attempt_log.map((a) => [a.at_ms - t0, a.http_status]));
    expect(log).toEqual([[[1_000, 200]], [[1_000, 200]], [[1_000, 200]]]);
  });
});
