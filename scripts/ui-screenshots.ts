// `npm run docs:screenshots`: the dashboard's screenshots in docs/ui/*.png (docs/ui.md shows them). It serves a small
// world on a virtual clock (two organizations, settled and failed trades, a receiver that fails its first answers,
// a fault rule that fired, a conduct finding, a trigger run from the page), opens each view in headless Chromium
// and saves it. Needs the built
// page (node lib/build.mjs --js) and /usr/bin/chromium.
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Page } from 'playwright-core';
import { startTestSim } from '../fake-provider/testing/harness.ts';
import { destination, firmQuote, fund, readyAccount } from '../fake-provider/testing/flows.ts';
import { startReceiver } from '../scenarios/dsl/webhook-receiver.ts';
import { triggerRunner } from '../cli/trigger-runner.ts';

const OUT = resolve(dirname(fileURLToPath(import.meta.url)), '../docs/ui');
const ETH = 'native.evm:42161';
const USDC = 'erc20.evm:42161_0xaf88d065e77c8cc2239327c5edb3a432268e5831';
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];
const unthrottled = { reads: 100_000, writes: 100_000, indicative_rfqs: 100_000, firm_rfqs: 100_000 };

const sim = await startTestSim({ seed_orgs: [] });
// What `swapsim serve` hands its server: the Triggers view's Run buttons work.
sim.running.runtime.options.trigger_runner = triggerRunner();
const rx = await startReceiver();
// The receiver answers 500 to `failing` deliveries from when it is set: the Webhooks view then shows retries.
let failing = 0;
rx.answer = (r) => (failing-- > 0 ? 500 : r.signature_valid ? 200 : 401);
const a = await sim.newOrg({ rate_limits: unthrottled, partner_screening: true });
const b = await sim.newOrg({ rate_limits: unthrottled, platform_fee_bps: '15' });
rx.secret = (await sim.api('POST', '/webhooks', { key: a.api_key, body: { url: rx.url } })).body.webhook.secret;
const account = await readyAccount(sim, a.api_key);
const dest = await destination(sim, account, USDC, a.api_key);
let tradeId = '';
for (const [i, fail] of [
  [0, false],
  [1, true],
  [2, false],
] as const) {
  const credit = await fund(sim, account, ETH, `${i + 1}000000000000000000`, a.api_key);
  if (fail) await sim.control('POST', '/faults', { target: 'trade', effect: { fail: 'settlement_failed' }, times: 1 });
  const { quote_id } = await firmQuote(sim, {
    account_id: account,
    credit_id: credit,
    destination_id: dest,
    from: ETH,
    to: USDC,
    amount_in_atoms: '500000000000000000',
    key: a.api_key,
  });
  const trade = (await sim.api('POST', `/quotes/${quote_id}/accept`, { key: a.api_key, body: { slippage_bps: '50' } })).body.trade
    .trade_id as string;
  if (!fail) tradeId = trade;
  await sim.settle();
}
await sim.control('POST', '/faults', {
  target: 'webhook',
  effect: { webhook: 'duplicate' },
  match: { event_type: 'trade.*' },
  probability: 0.5,
});
await fund(sim, await readyAccount(sim, b.api_key), ETH, '3000000000000000000', b.api_key);
// A conduct finding: the same Idempotency-Key with another body; the new account's first deliveries fail.
failing = 4;
await sim.api('POST', '/accounts', { key: a.api_key, idem: 'dup-key', body: { label: 'one' } });
await sim.api('POST', '/accounts', { key: a.api_key, idem: 'dup-key', body: { label: 'two' } });
await sim.settle();

mkdirSync(OUT, { recursive: true });
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ARGS });
const origin = new URL(sim.control_url).origin;
const page = await browser.newPage({ viewport: { width: 1360, height: 820 } });
page.on('pageerror', (e) => {
  throw e;
});
await page.goto(`${origin}/_sim/ui`);
await page.waitForSelector('[data-testid="orgs"] tr[data-org]');

async function shot(name: string, page: Page): Promise<void> {
  await page.waitForTimeout(150);
  await page.screenshot({ path: resolve(OUT, `${name}.png`) });
  console.log(`docs/ui/${name}.png`);
}

async function tab(name: string): Promise<void> {
  await page.click(`nav button[data-tab="${name}"]`);
  await page.waitForSelector(`main [data-view="${name}"]`);
}

await shot('organizations', page);
await page.click(`tr[data-org="${a.organization_id}"]`);
await page.click(`tr[data-account="${account}"]`);
await page.waitForSelector('[data-testid="credits"] tr[data-credit]');
await shot('accounts', page);
await tab('lifecycles');
await page.click(`tr[data-entity="${tradeId}"]`);
await page.waitForSelector('[data-testid="timeline"] tbody tr');
await page.waitForSelector('[data-testid="timeline-chart"] svg');
await shot('lifecycles', page);
await tab('webhooks');
await page.waitForSelector('[data-testid="events"] tr[data-event]');
await shot('webhooks', page);
await tab('faults');
await shot('faults', page);
await tab('triggers');
await page.waitForSelector('[data-testid="triggers"] tr[data-trigger]');
await page.click('tr[data-trigger="deposit-flagged-sanctions-match"] [data-testid="run-trigger"]');
await page.waitForSelector('[data-testid="trigger-run"][data-status="passed"]', { timeout: 30_000 });
await page.evaluate('window.scrollTo(0, 0)');
await shot('triggers', page);
await tab('conduct');
await shot('conduct', page);
await tab('invariants');
await page.waitForSelector('[data-testid="invariants-ok"]');
await shot('invariants', page);

// An organization's own key: that organization alone, through /v1.
const own = await browser.newPage({ viewport: { width: 1360, height: 620 } });
await own.goto(`${origin}/_sim/ui#key=${b.api_key}`);
await own.waitForSelector('[data-testid="accounts"] tr[data-account]');
await own.click('[data-testid="accounts"] tr[data-account]');
await own.waitForSelector('[data-testid="credits"] tr[data-credit]');
await shot('organization-key', own);

await browser.close();
await Promise.all([sim.close(), rx.close()]);
