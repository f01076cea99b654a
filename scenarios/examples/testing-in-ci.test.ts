// The "Testing your integration in CI" example of docs/library.md, verbatim: an in-process swapsim, a webhook consumer
// (the stand-in for yours), and a fast-check property over generated journeys, fault plans and delivery chaos.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { arbitraries, createSim, type Event, type Sim } from 'swapsim';

// Your webhook consumer goes here. This one checks the signature over the raw body, applies each event
// once (dedupe by event_id), and can catch up from GET /events after downtime.
function startConsumer() {
  const applied = new Map<string, Set<string>>(); // account_id → ids of the events applied
  const apply = (e: { event_id: string; account_id: string }): void => {
    if (!applied.has(e.account_id)) applied.set(e.account_id, new Set());
    applied.get(e.account_id)!.add(e.event_id);
  };
  const consumer = { url: '', secret: '', applied, apply, close: () => server.close() };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const expected = Buffer.from(
        `v1=${createHmac('sha256', consumer.secret).update(`${req.headers['svc-timestamp']}.`).update(raw).digest('hex')}`,
      );
      const given = Buffer.from(String(req.headers['svc-signature'] ?? ''));
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return void res.writeHead(401).end();
      apply(JSON.parse(raw.toString('utf8')));
      res.writeHead(200).end();
    });
  });
  return new Promise<typeof consumer>((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve(Object.assign(consumer, { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks` })),
    ),
  );
}

/** Every event of an account in the provider's feed, following next_cursor. */
async function feed(sim: Sim, account_id: string): Promise<Event[]> {
  const events: Event[] = [];
  let cursor: string | null = null;
  do {
    const query: `?${string}` = `?account_id=${account_id}&limit=100${cursor ? `&cursor=${cursor}` : ''}`;
    // Typed from the route: { events: Event[], has_more, next_cursor } (Event is a union discriminated by `type`).
    const page = (await sim.api('GET', `/events${query}`)).body;
    events.push(...page.events);
    cursor = page.next_cursor;
  } while (cursor);
  return events;
}

let sim: Sim;
let consumer: Awaited<ReturnType<typeof startConsumer>>;

beforeAll(async () => {
  sim = await createSim({ seed: 42 });
  consumer = await startConsumer();
  consumer.secret = (await sim.webhook(consumer.url)).secret;
});

afterAll(async () => {
  consumer.close();
  await sim.close();
});

test('every event is applied exactly once, whatever happens to the deliveries', async () => {
  await fc.assert(
    fc.asyncProperty(arbitraries.scenario({ max_steps: 4 }), async (scenario) => {
      // Fresh accounts, the steps with faults and chaos (duplicates, drops, outages past 72 h, forgeries),
      // then the rules are removed and the clock settled.
      const run = await scenario.run(sim, { webhook: { url: consumer.url, secret: consumer.secret } });
      for (const account_id of run.account_ids) {
        const events = await feed(sim, account_id);
        events.forEach(consumer.apply); // catch up from the feed: what an outage lost comes back here
        expect([...(consumer.applied.get(account_id) ?? [])].sort()).toEqual(events.map((e) => e.event_id).sort());
      }
      expect(run.forged.every((f) => f.answered === 401)).toBe(true);
    }),
    { numRuns: 10, seed: 42 },
  );
}, 120_000);
