// The hub against real lanes (in-process sims on ephemeral ports) and a real client: the composite feed is
// predicted from each lane's own feed, read directly (the oracle): every event of every lane exactly once and in
// its lane's order, for several page sizes, with events appended between pages, and on a tail re-read; routing
// by an id learned from a delivery body or a response, by account_id, and the provider's own 404 and 400
// envelopes for what no lane owns or no lane can read; a lane's 429 answered as the lane answered; and the
// app's conduct record on every lane left clean by the hub's reads.
import { once } from 'node:events';
import { connect } from 'node:net';
import { Client } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSim, listAll, type Sim } from '../../lib/sim.ts';
import { startHub, type Hub, type Mount } from './hub.ts';
import { judgedConduct } from './lane.ts';

const DRIVER = 'sk_driver_000000000000000000000001';
const APP = 'sk_app_00000000000000000000000002';

type Envelope = { event_id: string; account_id: string };
type Page = { events: Envelope[]; has_more: boolean; next_cursor: string | null };

let lanes: Sim[] = [];
let hub: Hub;
let mount: Mount;

async function addAccounts(sim: Sim, n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const r = await sim.api<{ account: { account_id: string } }>('POST', '/accounts', { body: { label: `hub-${i}` } });
    expect(r.status).toBe(200);
    ids.push(r.body.account.account_id);
  }
  await sim.advance(5_000); // wallets (account.wallet_created per chain) follow a few sim-seconds later
  return ids;
}

/** The oracle: a lane's own feed, read directly with the driver's key. */
const laneFeed = (sim: Sim): Promise<Envelope[]> => listAll<Envelope>(sim, '/events', 'events');

async function get(path: string): Promise<{ status: number; body: any; headers: Headers }> {
  const res = await fetch(mount.base_url + path, { headers: { authorization: `Bearer ${APP}` } });
  return { status: res.status, body: await res.json(), headers: res.headers };
}

async function page(limit: number | null, cursor: string | null): Promise<Page> {
  const q = new URLSearchParams();
  if (limit !== null) q.set('limit', String(limit));
  if (cursor !== null) q.set('cursor', cursor);
  const r = await get(`/events${q.size ? `?${q}` : ''}`);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  const p = r.body as Page;
  // The provider's conventions: a full page when there is more, next_cursor exactly when has_more.
  expect(p.events.length).toBeLessThanOrEqual(limit ?? 50);
  if (p.has_more) expect(p.events.length).toBe(limit ?? 50);
  expect(p.next_cursor === null).toBe(!p.has_more);
  return p;
}

/** Follows next_cursor from `cursor` to the tail; returns the events and the last cursor followed (where the tail page starts). */
async function readAll(limit: number | null, cursor: string | null = null): Promise<{ events: Envelope[]; last: string | null }> {
  const events: Envelope[] = [];
  let last = cursor;
  for (let n = 0; n < 1_000; n++) {
    const p = await page(limit, last);
    // has_more is exact, as the provider's: a page it promised is never empty.
    if (n > 0) expect(p.events.length).toBeGreaterThan(0);
    events.push(...p.events);
    if (!p.has_more) return { events, last };
    last = p.next_cursor;
  }
  throw new Error('the composite feed never ended');
}

/** Every lane's events, each exactly once and in its lane's order; nothing else. */
async function expectEveryLaneOnce(events: Envelope[]): Promise<void> {
  const ids = events.map((e) => e.event_id);
  expect(new Set(ids).size, 'an event served twice').toBe(ids.length);
  const feeds = await Promise.all(lanes.map(laneFeed));
  expect(ids.length).toBe(feeds.reduce((n, f) => n + f.length, 0));
  for (const feed of feeds) {
    const own = new Set(feed.map((e) => e.event_id));
    expect(ids.filter((id) => own.has(id))).toEqual(feed.map((e) => e.event_id));
  }
}

beforeAll(async () => {
  // Lane 1 starts empty: a lane with no events is passed over, not ended on.
  lanes = await Promise.all(['hub-a', 'hub-b', 'hub-c'].map((seed) => createSim({ seed, api_keys: [DRIVER, APP] })));
  await addAccounts(lanes[0], 2);
  await addAccounts(lanes[2], 3);
  hub = await startHub({ peek_key: DRIVER });
  mount = hub.mount(lanes.map((l) => l.base_url));
}, 60_000);

afterAll(async () => {
  await hub?.close();
  await Promise.all(lanes.map((l) => l.close()));
});

describe('the composite feed', () => {
  it.each([1, 2, 7, null])('serves every lane event exactly once, in each lane order (limit %s)', async (limit) => {
    const { events } = await readAll(limit);
    await expectEveryLaneOnce(events);
    // Lanes in a fixed order: the first lane's events come first when nothing was appended meanwhile.
    const first = await laneFeed(lanes[0]);
    expect(events.slice(0, first.length).map((e) => e.event_id)).toEqual(first.map((e) => e.event_id));
  });

  it('serves events appended to any lane between pages, and on a tail re-read from the last cursor followed serves the tail again and nothing twice beyond it', async () => {
    const served: Envelope[] = [];
    let p = await page(7, null);
    served.push(...p.events);
    await addAccounts(lanes[0], 1); // behind the first page's position in lane 0
    await addAccounts(lanes[1], 1); // a lane that was empty
    while (p.has_more) {
      const cursor = p.next_cursor;
      p = await page(7, cursor);
      served.push(...p.events);
      if (p.has_more) continue;
      // The tail: append, then re-read from the cursor that started the tail page, as an integrator does.
      const tail = p.events.map((e) => e.event_id);
      const before = new Set((await Promise.all(lanes.map(laneFeed))).flat().map((e) => e.event_id));
      await addAccounts(lanes[2], 1);
      await addAccounts(lanes[1], 1);
      const again = await readAll(7, cursor);
      const fresh = (await Promise.all(lanes.map(laneFeed)))
        .flat()
        .map((e) => e.event_id)
        .filter((id) => !before.has(id));
      expect(fresh.length).toBeGreaterThan(0);
      expect(again.events.map((e) => e.event_id).sort()).toEqual([...tail, ...fresh].sort());
      served.push(...again.events.filter((e) => !tail.includes(e.event_id)));
      break;
    }
    await expectEveryLaneOnce(served);
  });

  it("leaves the app key's conduct record clean on every lane (page after page, tail re-reads, reads from the top again)", async () => {
    await readAll(3);
    await readAll(100);
    const last = await readAll(5);
    await readAll(5, last.last);
    for (const lane of lanes) expect((await lane.conduct(APP)).findings).toEqual([]);
  });

  it("answers an undecodable cursor and a bad limit with the provider's own 400 envelope", async () => {
    const bad = await get('/events?cursor=not-a-cursor');
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'invalid_parameter', param: 'cursor' });
    const forged = await get('/events?cursor=hub1~0.3.bm90LWEtY3Vyc29y');
    expect(forged.status).toBe(400);
    expect(forged.body.error).toMatchObject({ code: 'invalid_parameter', param: 'cursor' });
    const limit = await get('/events?limit=101');
    expect(limit.status).toBe(400);
    expect(limit.body.error).toMatchObject({ code: 'invalid_parameter', param: 'limit' });
  });

  it('answers as the lane answered when a lane refuses (429 with Retry-After)', async () => {
    const rule = await lanes[1].faults.add({
      target: 'http',
      effect: { http_status: 429, retry_after: true },
      match: { method: 'GET', path: '/v1/events*' },
      times: 1,
    });
    try {
      const r = await get('/events?limit=100');
      expect(r.status).toBe(429);
      expect(r.body.error.code).toBe('rate_limited');
      expect(r.headers.get('retry-after')).not.toBeNull();
    } finally {
      await lanes[1].faults.remove(rule.fault_id).catch(() => undefined);
    }
  });
});

describe('routing by id', () => {
  it('sends an id learned from a delivery body to its lane; an id nobody owns gets the first lane and its 404', async () => {
    const [account_id] = await addAccounts(lanes[2], 1);
    const unknown = await get(`/accounts/${account_id}`);
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('account_not_found');
    // What the relay hands the hub for each delivery it forwards: the body bytes.
    mount.learn(2, Buffer.from(JSON.stringify({ event_id: 'evt_x', type: 'account.created', account_id, data: {} })));
    const known = await get(`/accounts/${account_id}`);
    expect(known.status).toBe(200);
    expect(known.body.account.account_id).toBe(account_id);
  });

  it('sends an id learned from a response body to its lane, and account_id reads to that lane with its own cursors', async () => {
    const [account_id] = await addAccounts(lanes[1], 1);
    expect(mount.owner(account_id)).toBeUndefined();
    await readAll(100); // the composite feed passes lane 1's events through the hub
    expect(mount.owner(account_id)).toBe(1);
    const account = await get(`/accounts/${account_id}`);
    expect(account.status).toBe(200);
    const scoped = await get(`/events?account_id=${account_id}&limit=2`);
    expect(scoped.status).toBe(200);
    const direct = await lanes[1].api<Page>('GET', `/events?account_id=${account_id}&limit=2`, { key: APP });
    expect(scoped.body.events).toEqual(direct.body.events);
    expect(scoped.body.next_cursor).toBe(direct.body.next_cursor);
  });
});

describe("the app's timing as the hub saw it (a request already on its way ignored no 429)", () => {
  it('excuses a read the app sent before the 429 reached it, and only that one', async () => {
    const rule = await lanes[0].faults.add({
      target: 'http',
      effect: { http_status: 429, retry_after: true },
      match: { method: 'GET', path: '/v1/assets*' },
      times: 1,
    });
    // Two connections of the app's, one request at a time each (HTTP/1.1).
    const base = new URL(mount.base_url);
    const conns = [new Client(base.origin), new Client(base.origin)];
    const read = async (conn: number): Promise<{ status: number; body: any }> => {
      const r = await conns[conn].request({ method: 'GET', path: `${base.pathname}/assets`, headers: { authorization: `Bearer ${APP}` } });
      return { status: r.statusCode, body: await r.body.json() };
    };
    // A connection the app opened while the two reads were on their way, its first request sent only later.
    const raw = connect(Number(base.port), '127.0.0.1');
    await once(raw, 'connect');
    const rawRead = async (): Promise<{ status: number; body: any }> => {
      raw.write(`GET ${base.pathname}/assets HTTP/1.1\r\nHost: ${base.host}\r\nAuthorization: Bearer ${APP}\r\n\r\n`);
      let text = '';
      for (;;) {
        const [chunk] = (await once(raw, 'data')) as [Buffer];
        text += chunk.toString('utf8');
        const head = text.indexOf('\r\n\r\n');
        const length = Number(/content-length: ([0-9]+)/i.exec(text)?.[1] ?? NaN);
        if (head >= 0 && text.length >= head + 4 + length)
          return { status: Number(text.slice(9, 12)), body: JSON.parse(text.slice(head + 4, head + 4 + length)) };
      }
    };
    // Two reads held at lane 0's gate, then let go together: the lane answers one 429 and sees the other next.
    let open!: () => void;
    const held = new Promise<void>((resolve) => (open = resolve));
    mount.setGate(0, () => held);
    try {
      const both = Promise.all([read(0), read(1)]);
      await new Promise((r) => setTimeout(r, 50));
      open();
      const answers = await both;
      const refused = answers.findIndex((r) => r.status === 429);
      expect(refused, 'one of the two met the fault').toBeGreaterThanOrEqual(0);
      expect(answers[1 - refused].status).toBe(200);
      // Then, inside the 429's Retry-After (1 s), each sent once the app had read it: a read on the first
      // connection, the first request of the connection opened before (what it was opened for), its second, and a
      // read on the other connection.
      const same = await read(refused);
      const opened_before = await rawRead();
      const second_on_it = await rawRead();
      await new Promise((r) => setTimeout(r, 100));
      const other = await read(1 - refused);
      const ids = {
        refused: answers[refused].body.error.request_id as string,
        concurrent: answers[1 - refused].body.request_id as string,
        same: same.body.request_id as string,
        opened_before: opened_before.body.request_id as string,
        second_on_it: second_on_it.body.request_id as string,
        other: other.body.request_id as string,
      };
      const findings = (await lanes[0].conduct(APP)).findings.filter((f) => f.kind === 'retry_after_ignored');
      // The provider sees five requests inside the Retry-After; the app could not have waited for the first two.
      const after = (k: keyof typeof ids): string[] => [ids.refused, ids[k]];
      expect(findings.map((f) => f.request_ids)).toEqual(
        (['concurrent', 'same', 'opened_before', 'second_on_it', 'other'] as const).map(after),
      );
      expect(judgedConduct(findings, mount.sentBefore).map((f) => f.request_ids)).toEqual(
        (['same', 'second_on_it', 'other'] as const).map(after),
      );
    } finally {
      raw.destroy();
      mount.setGate(0, null);
      await Promise.all(conns.map((c) => c.close()));
      await lanes[0].faults.remove(rule.fault_id).catch(() => undefined);
    }
  });
});
