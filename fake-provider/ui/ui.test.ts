// The dashboard in a real browser: headless Chromium (Debian's, driven by playwright-core) against one swapsim
// server with two organizations, a settled trade and a webhook receiver. Each view must show what the API says;
// each lever used from the page must change the world as the same control-plane call would (read back through
// the API); the page logs no console error; the token and an organization's key keep to what they may see.
import { existsSync, readFileSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSim, type TestSim } from '../testing/harness.ts';
import { destination, firmQuote, fund, readyAccount } from '../testing/flows.ts';
import { startReceiver, type Receiver } from '../../scenarios/dsl/webhook-receiver.ts';
import { UI_DIST } from './assets.ts';
import { triggerRunner } from '../../cli/trigger-runner.ts';

const CHROMIUM = '/usr/bin/chromium';
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];
const present = existsSync(CHROMIUM);
const SKIP_NOTE = present ? '' : ` (skipped: no ${CHROMIUM}; Debian: apt-get install -y chromium, .ci/run installs it)`;
const ETH = 'native.evm:42161';
const USDC = 'erc20.evm:42161_0xaf88d065e77c8cc2239327c5edb3a432268e5831';

let browser: Browser;
let sim: TestSim;
let rx: Receiver;
let orgA: { organization_id: string; api_key: string };
let orgB: { organization_id: string; api_key: string };
let accountA: string;
let accountB: string;
let tradeId: string;

/** Console errors and failed page scripts; `expected` lists statuses of refusals a test asks for on purpose. */
interface Opened {
  page: Page;
  errors: string[];
}

/** The page the control-plane tests share (opened once: a page costs a second on a loaded machine). */
let shared: Opened;

/** The shared page on a view, its error list emptied for the test. */
async function sharedOn(view: string): Promise<Opened> {
  shared.errors.length = 0;
  if ((await shared.page.$('[data-testid="org"]')) && (await shared.page.inputValue('[data-testid="org"]')) !== orgA.organization_id) {
    await shared.page.selectOption('[data-testid="org"]', orgA.organization_id);
  }
  await tab(shared.page, view);
  return shared;
}

async function open(hash = ''): Promise<Opened> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('request', (r) => {
    if (!r.url().startsWith(new URL(sim.control_url).origin)) errors.push(`outside request ${r.url()}`);
  });
  await page.goto(`${new URL(sim.control_url).origin}/_sim/ui?poll_ms=200${hash}`);
  return { page, errors };
}

/** Polls until `check` passes (the page redraws on its own; nothing here sleeps a fixed time). */
async function until<T>(check: () => Promise<T>, what: string, timeout_ms = 5_000): Promise<T> {
  const deadline = Date.now() + timeout_ms;
  for (;;) {
    try {
      return await check();
    } catch (e) {
      if (Date.now() > deadline) throw new Error(`${what}: ${(e as Error).message}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

const attrs = (page: Page, selector: string, name: string): Promise<string[]> =>
  page.$$eval(selector, (els, n) => els.map((e) => e.getAttribute(n) ?? ''), name);

async function tab(page: Page, name: string): Promise<void> {
  await page.click(`nav button[data-tab="${name}"]`);
  await page.waitForSelector(`main [data-view="${name}"]`);
}

async function control(method: string, path: string, body?: unknown) {
  return sim.control(method, path, body);
}

describe.skipIf(!present)(`the dashboard in headless Chromium${SKIP_NOTE}`, () => {
  beforeAll(async () => {
    if (!existsSync(new URL('app.js', UI_DIST))) throw new Error('dist/ui is not built (node lib/build.mjs --js)');
    // Chromium starts while the world is built.
    const launching = chromium.launch({ executablePath: CHROMIUM, args: ARGS });
    [sim, rx] = await Promise.all([startTestSim({ seed_orgs: [] }), startReceiver()]);
    const unthrottled = { reads: 100_000, writes: 100_000, indicative_rfqs: 100_000, firm_rfqs: 100_000 };
    orgA = await sim.newOrg({ rate_limits: unthrottled });
    orgB = await sim.newOrg({ rate_limits: unthrottled });
    const hook = await sim.api('POST', '/webhooks', { key: orgA.api_key, body: { url: rx.url } });
    rx.secret = hook.body.webhook.secret;
    accountA = await readyAccount(sim, orgA.api_key);
    const credit = await fund(sim, accountA, ETH, '1000000000000000000', orgA.api_key);
    const dest = await destination(sim, accountA, USDC, orgA.api_key);
    const { quote_id } = await firmQuote(sim, {
      account_id: accountA,
      credit_id: credit,
      destination_id: dest,
      from: ETH,
      to: USDC,
      amount_in_atoms: '500000000000000000',
      key: orgA.api_key,
    });
    tradeId = (await sim.api('POST', `/quotes/${quote_id}/accept`, { key: orgA.api_key, body: { slippage_bps: '50' } })).body.trade
      .trade_id;
    accountB = await readyAccount(sim, orgB.api_key);
    await fund(sim, accountB, ETH, '2000000000000000000', orgB.api_key);
    await sim.settle();
    browser = await launching;
    shared = await open();
    await shared.page.waitForSelector('[data-testid="orgs"] tr[data-org]');
  }, 60_000);
  afterAll(async () => {
    await Promise.all([browser?.close(), sim?.close(), rx?.close()]);
  });

  it('organizations, accounts with balances and credits, as the API has them; a new account shows up without a reload', async () => {
    const { page, errors } = await sharedOn('world');
    const orgs = (await control('GET', '/organizations')).body.organizations.map((o: { organization_id: string }) => o.organization_id);
    expect(await attrs(page, '[data-testid="orgs"] tr[data-org]', 'data-org')).toEqual(orgs);

    await page.click(`tr[data-org="${orgA.organization_id}"]`);
    await page.waitForSelector(`tr[data-account="${accountA}"]`);
    const balances = (await sim.api('GET', `/accounts/${accountA}/balances`, { key: orgA.api_key })).body.balances as Array<{
      asset_key: string;
      available_atoms: string;
    }>;
    const cell = await page.locator(`tr[data-account="${accountA}"] td`).nth(3).innerText();
    for (const b of balances) expect(cell).toContain(`${b.available_atoms} ${b.asset_key}`);

    await page.click(`tr[data-account="${accountA}"]`);
    await page.waitForSelector('[data-testid="credits"] tr[data-credit]');
    const v1 = [
      ...(await sim.api('GET', `/accounts/${accountA}/credits?status=open&limit=100`, { key: orgA.api_key })).body.credits,
      ...(await sim.api('GET', `/accounts/${accountA}/credits?status=consumed&limit=100`, { key: orgA.api_key })).body.credits,
    ] as Array<{ credit_id: string; status: string; source_type: string; source_id: string }>;
    const shown = await page.$$eval('[data-testid="credits"] tr[data-credit]', (rows) =>
      rows.map((r) => ({ id: r.getAttribute('data-credit'), status: r.children[2].textContent, from: r.children[3].textContent })),
    );
    expect(shown.map((c) => c.id).sort()).toEqual(v1.map((c) => c.credit_id).sort());
    for (const c of v1) {
      const s = shown.find((x) => x.id === c.credit_id)!;
      expect(s.status).toBe(c.status);
      expect(s.from).toBe(`${c.source_type} ${c.source_id}`);
    }

    const created = (await sim.api('POST', '/accounts', { key: orgA.api_key, body: { label: 'live' } })).body.account.account_id;
    await page.waitForSelector(`tr[data-account="${created}"]`, { timeout: 5_000 });
    expect(errors).toEqual([]);
  }, 30_000);

  it("lifecycles: the trade's status and its timeline are the API's", async () => {
    const { page, errors } = await sharedOn('lifecycles');
    await page.waitForSelector(`tr[data-entity="${tradeId}"]`);
    const trade = (await sim.api('GET', `/trades/${tradeId}`, { key: orgA.api_key })).body.trade;
    expect(trade.status).toBe('settled');
    expect(await page.locator(`tr[data-entity="${tradeId}"] td`).nth(2).innerText()).toBe(trade.status);
    await page.click(`tr[data-entity="${tradeId}"]`);
    await page.waitForSelector('[data-testid="timeline"] tbody tr');
    const api = (await control('GET', `/timeline?entity_id=${tradeId}`)).body.timeline as Array<{
      kind: string;
      event_type?: string;
      to?: string;
    }>;
    const rows = await page.$$eval('[data-testid="timeline"] tbody tr', (trs) =>
      trs.map((t) => [t.children[1].textContent, t.children[3].textContent]),
    );
    expect(rows).toHaveLength(api.length);
    expect(rows.map((r) => r[0])).toEqual(api.map((t) => t.kind));
    expect(rows.some((r) => r[1] === 'trade.settled')).toBe(true);

    // Another organization's entities never show under this one.
    await page.selectOption('[data-testid="org"]', orgB.organization_id);
    await page.waitForSelector(`main [data-view="lifecycles"]`);
    await until(async () => expect(await page.locator(`tr[data-entity="${tradeId}"]`).count()).toBe(0), 'org B lists no trade of org A');
    expect(errors).toEqual([]);
  }, 30_000);

  it("an entity's timeline is also drawn as the reports' swimlane: a bar for each state its transitions enter", async () => {
    const { page, errors } = await sharedOn('lifecycles');
    await page.click(`tr[data-entity="${tradeId}"]`);
    await page.waitForSelector('[data-testid="timeline-chart"] svg');
    const api = (await control('GET', `/timeline?entity_id=${tradeId}`)).body.timeline as Array<{
      kind: string;
      entity_id: string;
      to?: string;
    }>;
    const entered = api.filter((t) => t.kind === 'transition' && t.entity_id === tradeId).map((t) => t.to!);
    const states = entered.filter((s, i) => s !== entered[i - 1]);
    expect(states).toEqual(['executing', 'filled', 'pending_settle', 'settled']);
    // Each mark says what it draws (vega's aria-label: `field: value; …`): the bars, their state labels, the markers.
    const marks = async (kind: string) =>
      (await attrs(page, `[data-testid="timeline-chart"] svg g.mark-${kind} [aria-label]`, 'aria-label')).map(
        (l) => Object.fromEntries(l.split('; ').map((kv) => kv.split(': '))) as Record<string, string>,
      );
    const lane = `trade ${tradeId}`;
    expect((await marks('rect')).filter((m) => m.lane === lane)).toHaveLength(states.length);
    expect((await marks('text')).filter((m) => m.lane === lane).map((m) => m.state)).toEqual(states);
    const points = await marks('symbol');
    expect(points.filter((m) => m.lane === lane && m.marker === 'event')).toHaveLength(api.filter((t) => t.kind === 'event').length);
    expect(points.filter((m) => m.lane === 'webhook deliveries')).toHaveLength(api.filter((t) => t.kind === 'delivery').length);
    // The table beside it still lists every row.
    expect(await page.locator('[data-testid="timeline"] tbody tr').count()).toBe(api.length);
    expect(errors).toEqual([]);
  }, 30_000);

  it('the clock levers move the clock as POST /_sim/clock/advance and /settle do', async () => {
    const { page, errors } = await sharedOn('world');
    const before = (await control('GET', '/clock')).body.clock.now_ms as number;
    await page.fill('[data-testid="advance-ms"]', '7000');
    await page.click('[data-testid="advance"]');
    await until(async () => expect((await control('GET', '/clock')).body.clock.now_ms).toBe(before + 7000), 'advanced 7 s');
    await until(
      async () => expect(await page.locator('#clock').getAttribute('data-now-ms')).toBe(String(before + 7000)),
      'header shows the clock',
    );

    await sim.api('POST', '/accounts', { key: orgB.api_key, body: {} });
    await page.click('[data-testid="settle"]');
    await until(
      async () => expect(await page.locator('[data-testid="clock-result"]').innerText()).toMatch(/^ran [1-9][0-9]*, 0 pending$/),
      'settled',
    );
    const after = await control('POST', '/clock/settle', {});
    expect(after.body.ran.ran).toBe(0);
    expect(after.body.pending).toBe(0);
    expect(errors).toEqual([]);
  }, 30_000);

  it("the speed lever changes the chosen organization's own realtime clock as POST /_sim/clock/speed does; on the server's virtual clock it shows the refusal", async () => {
    const { page, errors } = await sharedOn('world');
    // On org A (the server's virtual clock) the API refuses, and the page says what it said.
    await page.fill('[data-testid="speed"]', '50');
    await page.click('[data-testid="set-speed"]');
    await page.waitForSelector('[data-testid="clock-result"] .error');
    const refused = await control('POST', '/clock/speed', { speed: 50 });
    expect(await page.locator('[data-testid="clock-result"] .error').innerText()).toBe(
      `409 ${refused.body.error.code}: ${refused.body.error.message}`,
    );
    expect((await control('GET', '/clock')).body.clock.speed).toBe(1);

    const own = (await control('POST', '/organizations', { clock: { mode: 'realtime', speed: 1 } })).body.organization as {
      organization_id: string;
    };
    await until(
      async () => expect(await page.locator(`[data-testid="org"] option[value="${own.organization_id}"]`).count()).toBe(1),
      'the new organization is offered',
    );
    await page.selectOption('[data-testid="org"]', own.organization_id);
    await page.fill('[data-testid="speed"]', '3600');
    await page.click('[data-testid="set-speed"]');
    await until(
      async () => expect((await control('GET', `/clock?organization_id=${own.organization_id}`)).body.clock.speed).toBe(3600),
      'its clock runs at ×3600',
    );
    // The header shows that organization's own clock, at its speed; the server's is untouched.
    await until(async () => expect(await page.locator('#clock').innerText()).toMatch(/· realtime ×3600$/), 'the header shows its clock');
    expect((await control('GET', '/clock')).body.clock).toMatchObject({ mode: 'virtual', speed: 1 });
    // Off it before it goes: a poll of the deleted organization's clock would be a 404 in the next test's console.
    await page.selectOption('[data-testid="org"]', orgA.organization_id);
    await until(async () => expect(await page.locator('#clock').innerText()).toMatch(/· virtual$/), 'the header shows the server clock');
    await control('DELETE', `/organizations/${own.organization_id}`);
    expect(errors.filter((e) => !/status of 409/.test(e))).toEqual([]);
    expect(errors).toHaveLength(1);
  }, 30_000);

  it('faults: a refused rule shows the API error and adds nothing; an added rule is the one POST makes; it fires, shows, and is removed', async () => {
    const { page, errors } = await sharedOn('faults');
    const bad = '{"target":"trade","effect":{"fail":"nope"}}';
    await page.fill('[data-testid="fault-body"]', bad);
    await page.click('[data-testid="add-fault"]');
    await page.waitForSelector('[data-testid="fault-result"] .error');
    const refused = await control('POST', '/faults', JSON.parse(bad));
    expect(await page.locator('[data-testid="fault-result"] .error').innerText()).toBe(
      `400 ${refused.body.error.code}: ${refused.body.error.message} (param ${refused.body.error.param})`,
    );
    expect((await control('GET', '/faults')).body.faults).toEqual([]);

    const rule = { target: 'webhook', effect: { webhook: 'drop' }, match: { event_type: 'account.*' }, times: 1 };
    await page.fill('[data-testid="fault-body"]', JSON.stringify(rule));
    await page.click('[data-testid="add-fault"]');
    await page.waitForSelector('[data-testid="faults"] tr[data-fault]');
    const [stored] = (await control('GET', '/faults')).body.faults;
    expect(stored).toMatchObject({ ...rule, probability: 1 });

    // It fires on org A's next account.created, and the page lists the firing and the dropped attempt.
    const acct = (await sim.api('POST', '/accounts', { key: orgA.api_key, body: {} })).body.account.account_id;
    await sim.advance(1_000);
    const fired = (await control('GET', '/faults')).body.fired as Array<{ fault_id: string; subject: string }>;
    expect(fired.map((f) => f.fault_id)).toEqual([stored.fault_id]);
    await until(async () => expect(await page.locator('[data-testid="fired"] tbody tr').count()).toBe(1), 'the firing shows');
    await tab(page, 'webhooks');
    await page.waitForSelector('[data-testid="events"] tr[data-event]');
    const apiEvents = (await control('GET', `/ui/events?organization_id=${orgA.organization_id}`)).body.events as Array<{
      event_id: string;
      account_id: string;
      deliveries: Array<{ attempts: unknown[] }>;
    }>;
    expect(await attrs(page, '[data-testid="events"] tr[data-event]', 'data-event')).toEqual(apiEvents.map((e) => e.event_id));
    const dropped = apiEvents.find((e) => e.account_id === acct)!;
    expect(await page.locator(`tr[data-event="${dropped.event_id}"] li`).first().innerText()).toMatch(/HTTP 0 \(0 sent, drop\)/);

    await tab(page, 'faults');
    await page.click(`tr[data-fault="${stored.fault_id}"] [data-testid="remove-fault"]`);
    await until(async () => expect((await control('GET', '/faults')).body.faults).toEqual([]), 'removed');
    await until(async () => expect(await page.locator('[data-testid="faults"] tr[data-fault]').count()).toBe(0), 'the page shows no rule');
    // The one refusal the test asked for is the browser's own network line, not a page error.
    expect(errors.filter((e) => !/status of 400/.test(e))).toEqual([]);
    expect(errors).toHaveLength(1);
  }, 30_000);

  it('webhooks: Replay asks /v1 replay for the event, and its delivery and attempts show as the API has them', async () => {
    const { page, errors } = await sharedOn('webhooks');
    const events = (await sim.api('GET', `/events?types=trade.settled`, { key: orgA.api_key })).body.events as Array<{ event_id: string }>;
    const settled = events[0].event_id;
    await page.waitForSelector(`tr[data-event="${settled}"]`);
    const hook = (await sim.api('GET', '/webhooks', { key: orgA.api_key })).body.webhooks[0].webhook_id;
    const deliveries = async () =>
      (await sim.api('GET', `/webhooks/${hook}/deliveries?event_id=${settled}`, { key: orgA.api_key })).body.deliveries as unknown[];
    const before = (await deliveries()).length;
    await page.click(`tr[data-event="${settled}"] [data-testid="replay"]`);
    await page.waitForSelector('[data-testid="replay-result"] .note');
    await sim.settle();
    expect((await deliveries()).length).toBe(before + 1);
    await until(
      async () => expect(await page.locator(`tr[data-event="${settled}"] [data-delivery]`).count()).toBe(before + 1),
      'the replay delivery shows',
    );
    // Every attempt of both deliveries, as the API lists them (the replay's own attempt shows once the page redraws).
    const api = (await control('GET', `/ui/events?organization_id=${orgA.organization_id}`)).body.events.find(
      (e: { event_id: string }) => e.event_id === settled,
    );
    const attempts = api.deliveries.reduce((n: number, d: { attempts: unknown[] }) => n + d.attempts.length, 0);
    expect(attempts).toBe(before + 1);
    await until(async () => expect(await page.locator(`tr[data-event="${settled}"] li`).count()).toBe(attempts), 'every attempt shows');
    expect(errors).toEqual([]);
  }, 30_000);

  it('invariants, conduct and triggers show what their endpoints say', async () => {
    const { page, errors } = await sharedOn('invariants');
    const inv = (await control('GET', '/invariants')).body;
    expect(await page.locator('[data-testid="invariants-ok"]').innerText()).toBe(inv.ok ? 'ok' : `${inv.violations.length} violations`);
    await tab(page, 'conduct');
    const conduct = (await control('GET', `/conduct?api_key=${orgA.api_key}`)).body.conduct;
    expect(await page.locator('[data-testid="conduct"] tbody tr').count()).toBe(conduct.findings.length);
    await tab(page, 'triggers');
    const list = JSON.parse(readFileSync(new URL('triggers.json', UI_DIST), 'utf8')) as Array<{ name: string }>;
    expect(list.length).toBeGreaterThan(10);
    expect(await attrs(page, '[data-testid="triggers"] tr[data-trigger]', 'data-trigger')).toEqual(list.map((t) => t.name));
    expect(await page.locator(`tr[data-trigger="${list[0].name}"] code`).innerText()).toContain(`--api-key ${orgA.api_key}`);
    expect(errors).toEqual([]);
  }, 30_000);

  it('Run plays a trigger in the chosen organization as `swapsim trigger` would (compared through the API); a refusal or a failed run shows its line', async () => {
    const { page, errors } = await sharedOn('triggers');
    const flagged = 'deposit-flagged-sanctions-match';
    await page.selectOption('[data-testid="org"]', orgB.organization_id);
    await page.waitForSelector(`tr[data-trigger="${flagged}"] code >> text=${orgB.api_key}`);
    const accountsB = async () =>
      ((await sim.api('GET', '/accounts?limit=100', { key: orgB.api_key })).body.accounts as Array<{ account_id: string }>).map(
        (a) => a.account_id,
      );
    const before = await accountsB();
    // A server started without a runner (this one, so far) says so, and nothing happens.
    await page.click(`tr[data-trigger="${flagged}"] [data-testid="run-trigger"]`);
    await page.waitForSelector('[data-testid="run-result"] .error');
    const refused = await control('POST', `/ui/triggers/${flagged}/runs`, { organization_id: orgB.organization_id });
    expect(await page.locator('[data-testid="run-result"] .error').innerText()).toBe(
      `501 ${refused.body.error.code}: ${refused.body.error.message}`,
    );
    expect(await accountsB()).toEqual(before);

    // `swapsim serve` hands its server the runner; the same click now plays the case in org B with B's key.
    sim.running.runtime.options.trigger_runner = triggerRunner();
    try {
      await page.click(`tr[data-trigger="${flagged}"] [data-testid="run-trigger"]`);
      await until(
        async () => expect(await page.locator('[data-testid="trigger-run"]').getAttribute('data-status')).toBe('passed'),
        'the run passed',
        20_000,
      );
      const run_id = (await page.locator('[data-testid="trigger-run"]').getAttribute('data-run'))!;
      const run = (await control('GET', `/ui/triggers/${flagged}/runs/${run_id}`)).body.run;
      expect(await page.locator('[data-testid="run-output"]').innerText()).toBe(run.output);
      expect(run.output).toContain(`ok: ${flagged}`);
      // What it says it did is what the API shows: a new account of org B's, its deposit flagged, no credit, and
      // the account's events as the run listed them.
      const [account] = run.run.ids.account as string[];
      const [deposit] = run.run.ids.deposit as string[];
      expect(await accountsB()).toEqual(expect.arrayContaining([...before, account]));
      expect((await sim.api('GET', `/accounts/${account}`, { key: orgA.api_key })).status).toBe(404);
      const deposits = (await control('GET', `/deposits?account_id=${account}`)).body.deposits as Array<{
        deposit_id: string;
        status: string;
      }>;
      expect(deposits.map((d) => [d.deposit_id, d.status])).toEqual([[deposit, 'flagged']]);
      expect((await sim.api('GET', `/accounts/${account}/credits?limit=100`, { key: orgB.api_key })).body.credits).toEqual([]);
      const feed = (await sim.api('GET', `/events?account_id=${account}&limit=100`, { key: orgB.api_key })).body.events as Array<{
        event_id: string;
      }>;
      expect((run.run.events as Array<{ event_id: string }>).map((e) => e.event_id)).toEqual(feed.map((e) => e.event_id));

      // A case the organization cannot run (it needs partner screening) fails with its reason, and changes nothing.
      const after = await accountsB();
      await page.click('tr[data-trigger="deposit-partner-flagged"] [data-testid="run-trigger"]');
      await until(
        async () => expect(await page.locator('[data-testid="trigger-run"]').getAttribute('data-status')).toBe('failed'),
        'the run failed',
      );
      const failed = (
        await control(
          'GET',
          `/ui/triggers/deposit-partner-flagged/runs/${await page.locator('[data-testid="trigger-run"]').getAttribute('data-run')}`,
        )
      ).body.run;
      expect(failed.failure).toMatch(/needs an organization with partner_screening true/);
      expect(await page.locator('[data-testid="run-failure"]').innerText()).toBe(failed.failure);
      expect(await accountsB()).toEqual(after);
    } finally {
      delete sim.running.runtime.options.trigger_runner;
    }
    // The one refusal asked for (501) is the browser's network line, not a page error.
    expect(errors.filter((e) => !/status of 501/.test(e))).toEqual([]);
    expect(errors).toHaveLength(1);
  }, 40_000);

  it("an organization's key sees that organization only, through /v1", async () => {
    const { page, errors } = await open(`#key=${orgB.api_key}`);
    await page.waitForSelector(`tr[data-account="${accountB}"]`);
    const mine = (await sim.api('GET', '/accounts?limit=100', { key: orgB.api_key })).body.accounts.map(
      (a: { account_id: string }) => a.account_id,
    );
    expect((await attrs(page, '[data-testid="accounts"] tr[data-account]', 'data-account')).sort()).toEqual(mine.sort());
    // Live: an account made with the key shows up without a reload (its account.created moves the feed).
    const made = (await sim.api('POST', '/accounts', { key: orgB.api_key, body: { label: 'live' } })).body.account.account_id as string;
    await page.waitForSelector(`tr[data-account="${made}"]`, { timeout: 5_000 });
    await page.click('nav button[data-tab="feed"]');
    await page.waitForSelector('[data-testid="feed"] tr[data-event]');
    const html = await page.content();
    for (const foreign of [accountA, tradeId, orgA.organization_id]) expect(html).not.toContain(foreign);
    expect(await page.locator('nav button[data-tab="faults"]').count()).toBe(0);
    expect(errors).toEqual([]);
    await page.close();
  }, 30_000);

  it('with --control-token the page asks for the token, and shows the world once given it', async () => {
    // The gate reads the runtime's options on every request: this is the server `serve --control-token` starts.
    sim.running.runtime.options.control_token = 'ui-test-token';
    try {
      const { page, errors } = await open();
      await page.waitForSelector('[data-testid="sign-in"]');
      expect((await fetch(`${sim.control_url}/ui/pulse`)).status).toBe(401);
      await page.fill('[data-testid="token"]', 'ui-test-token');
      await page.click('[data-testid="sign-in-token"]');
      await page.waitForSelector(`[data-testid="orgs"] tr[data-org="${orgA.organization_id}"]`);
      expect(errors).toEqual([]);
      await page.close();
    } finally {
      delete sim.running.runtime.options.control_token;
    }
  }, 30_000);
});
