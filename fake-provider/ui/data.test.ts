// The dashboard's server side over real HTTP, without a browser: its read-only routes (strict queries, unknown
// organizations and accounts, cursors, newest-first paging that never repeats or skips, locked credits, org
// scoping, the OpenAPI document) and its file routes (the loopback rule without a token, a missing build).
import type { Server } from 'node:http';
import Fastify from 'fastify';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSim, type TestSim } from '../testing/harness.ts';
import { destination, firmQuote, fund, readyAccount } from '../testing/flows.ts';
import { uiAssetRoutes } from './assets.ts';

const ETH = 'native.evm:42161';
const USDC = 'erc20.evm:42161_0xaf88d065e77c8cc2239327c5edb3a432268e5831';

let sim: TestSim;
let orgA: { organization_id: string; api_key: string };
let orgB: { organization_id: string; api_key: string };

beforeAll(async () => {
  sim = await startTestSim({ seed_orgs: [] });
  const unthrottled = { reads: 100_000, writes: 100_000, indicative_rfqs: 100_000, firm_rfqs: 100_000 };
  orgA = await sim.newOrg({ rate_limits: unthrottled });
  orgB = await sim.newOrg({ rate_limits: unthrottled });
});
afterAll(() => sim.close());

const get = (path: string) => sim.control('GET', path);

describe('GET /_sim/ui/* data routes', () => {
  it('refuse unknown query fields, unknown organizations and accounts, and foreign cursors, in the envelope', async () => {
    const extra = await get(`/ui/accounts?organization_id=${orgA.organization_id}&org=1`);
    expect(extra.status).toBe(400);
    expect(extra.body.error.code).toBe('invalid_parameter');
    expect((await get('/ui/accounts?organization_id=org_nope')).body.error).toMatchObject({ code: 'not_found', param: 'organization_id' });
    expect((await get('/ui/credits?account_id=acct_nope')).body.error).toMatchObject({ code: 'not_found', param: 'account_id' });
    expect((await get(`/ui/entities?organization_id=${orgA.organization_id}&kind=swap`)).body.error).toMatchObject({
      code: 'invalid_enum',
      param: 'kind',
    });
    expect((await get(`/ui/events?organization_id=${orgA.organization_id}&cursor=p99`)).body.error).toMatchObject({
      code: 'invalid_parameter',
      param: 'cursor',
    });
    expect((await get('/ui/pulse?x=1')).status).toBe(400);
  });

  it('page newest first: every account once across pages, and one created between pages shifts nothing', async () => {
    const made: string[] = [];
    for (let i = 0; i < 7; i++)
      made.push((await sim.api('POST', '/accounts', { key: orgB.api_key, body: { label: `n${i}` } })).body.account.account_id);
    const first = await get(`/ui/accounts?organization_id=${orgB.organization_id}&limit=3`);
    expect(first.body.accounts.map((a: { account_id: string }) => a.account_id)).toEqual(made.slice(-3).reverse());
    expect(first.body).toMatchObject({ has_more: true, total: 7 });
    await sim.api('POST', '/accounts', { key: orgB.api_key, body: {} });
    const seen = [...first.body.accounts];
    let cursor = first.body.next_cursor as string | null;
    while (cursor) {
      const page = await get(`/ui/accounts?organization_id=${orgB.organization_id}&limit=3&cursor=${cursor}`);
      seen.push(...page.body.accounts);
      cursor = page.body.next_cursor;
    }
    expect(seen.map((a) => a.account_id)).toEqual([...made].reverse());
    // Org A's list holds none of org B's accounts.
    expect((await get(`/ui/accounts?organization_id=${orgA.organization_id}`)).body.total).toBe(0);
  });

  it('a credit held by a trade in flight is locked (held_by the trade), then consumed by it; entities scope to their organization', async () => {
    const account = await readyAccount(sim, orgA.api_key);
    const credit = await fund(sim, account, ETH, '1000000000000000000', orgA.api_key);
    const dest = await destination(sim, account, USDC, orgA.api_key);
    const { quote_id } = await firmQuote(sim, {
      account_id: account,
      credit_id: credit,
      destination_id: dest,
      from: ETH,
      to: USDC,
      amount_in_atoms: '400000000000000000',
      key: orgA.api_key,
    });
    const trade = (await sim.api('POST', `/quotes/${quote_id}/accept`, { key: orgA.api_key, body: { slippage_bps: '50' } })).body.trade
      .trade_id;
    const held = (await get(`/ui/credits?account_id=${account}`)).body.credits.find((c: { credit_id: string }) => c.credit_id === credit);
    expect(held).toMatchObject({ status: 'locked', held_by: trade, source_type: 'deposit' });
    const counts = (await get(`/ui/accounts?organization_id=${orgA.organization_id}`)).body.accounts[0].credits;
    expect(counts).toEqual({ open: 0, locked: 1, consumed: 0 });
    await sim.settle();
    const after = (await get(`/ui/credits?account_id=${account}`)).body.credits as Array<{
      credit_id: string;
      status: string;
      consumed_by: string | null;
      source_type: string;
      source_id: string;
    }>;
    expect(after.find((c) => c.credit_id === credit)).toMatchObject({ status: 'consumed', consumed_by: trade });
    expect(
      after
        .filter((c) => c.source_id === trade)
        .map((c) => c.source_type)
        .sort(),
    ).toEqual(['change', 'trade_settlement']);
    const trades = await get(`/ui/entities?organization_id=${orgA.organization_id}&kind=trade`);
    expect(trades.body.entities).toEqual([expect.objectContaining({ id: trade, account_id: account, status: 'settled' })]);
    expect((await get(`/ui/entities?organization_id=${orgB.organization_id}&kind=trade`)).body.entities).toEqual([]);
    // The dashboard's timeline reads only the account's events: the same rows as reading every event.
    const whole = (await get(`/timeline?entity_id=${trade}`)).body.timeline;
    expect(whole.some((t: { event_type?: string }) => t.event_type === 'trade.settled')).toBe(true);
    expect((await get(`/timeline?entity_id=${trade}&account_id=${account}`)).body.timeline).toEqual(whole);
    // Two entities: both their transitions (the one-entity shortcut must not take a list).
    const both = (await get(`/timeline?entity_id=${trade},${credit}`)).body.timeline as Array<{ kind: string; entity_type: string }>;
    expect(new Set(both.filter((t) => t.kind === 'transition').map((t) => t.entity_type))).toEqual(new Set(['trade', 'credit']));
    const rfqs = (await get(`/ui/entities?organization_id=${orgA.organization_id}&kind=rfq`)).body.entities;
    expect(rfqs).toHaveLength(1);
    const events = (await get(`/ui/events?organization_id=${orgA.organization_id}&limit=100`)).body.events as Array<{ event_id: string }>;
    const feed = (await sim.api('GET', '/events?limit=100', { key: orgA.api_key })).body.events as Array<{ event_id: string }>;
    expect(events.map((e) => e.event_id)).toEqual(feed.map((e) => e.event_id).reverse());
  });

  it('are in the control plane OpenAPI document', async () => {
    const paths = Object.keys((await get('/openapi.json')).body.paths);
    for (const p of ['/ui/pulse', '/ui/accounts', '/ui/credits', '/ui/entities', '/ui/events']) expect(paths).toContain(p);
  });
});

describe('the dashboard files', () => {
  /** The file routes on a bare server, the client's address as given (a test cannot connect from afar). */
  async function files(dir: URL | undefined, remote: string): Promise<{ server: Server; url: string }> {
    const app = Fastify();
    app.addHook('onRequest', (request, _reply, done) => {
      Object.defineProperty(request.raw.socket, 'remoteAddress', { value: remote, configurable: true });
      done();
    });
    for (const r of uiAssetRoutes(sim.running.runtime, dir))
      app.get(r.path.slice('/_sim'.length), (request, reply) => r.serve(request, reply));
    await app.listen({ port: 0, host: '127.0.0.1' });
    return { server: app.server, url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}` };
  }

  it('are served to loopback clients; without a token a remote client is refused 403, as the control plane refuses it', async () => {
    const near = await files(undefined, '127.0.0.1');
    const page = await fetch(`${near.url}/ui`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<meta name="swapsim-control" content="open">');
    const far = await files(undefined, '10.1.2.3');
    const refused = await fetch(`${far.url}/ui/app.js`);
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('forbidden');
    sim.running.runtime.options.control_token = 'tok';
    try {
      // With a token the files hold no secret: the page asks for the token before any data call.
      const opened = await fetch(`${far.url}/ui`);
      expect(opened.status).toBe(200);
      expect(await opened.text()).toContain('content="token"');
    } finally {
      delete sim.running.runtime.options.control_token;
    }
    await Promise.all([near, far].map((f) => new Promise((r) => f.server.close(r))));
  });

  it('answer 501 not_implemented when dist/ui was not built', async () => {
    const none = await files(new URL('file:///nonexistent-swapsim-ui/'), '127.0.0.1');
    const r = await fetch(`${none.url}/ui/app.css`);
    expect(r.status).toBe(501);
    expect(((await r.json()) as { error: { message: string } }).error.message).toContain('npm run build');
    await new Promise((r2) => none.server.close(r2));
  });
});
