// HTTP conduct: a rate-limit storm against low limits, idempotent replays and conflicts, and a lost
// response retried with the same Idempotency-Key (exactly one trade).
import type { Scenario } from '../dsl/index.ts';
import { errorCode, errorOf, ETH, HALF_ETH, ofType, USDC, type ScenarioDsl } from '../dsl/index.ts';
import { funded } from './common.ts';

/** The scenario key's conduct report (GET /_sim/conduct declares no response schema; design.md gives its shape). */
async function conductOf(t: ScenarioDsl): Promise<{ findings: Array<{ kind: string }> }> {
  return ((await t.sim('GET', `/conduct?api_key=${encodeURIComponent(t.api.api_key)}`)).body as { conduct: { findings: Array<{ kind: string }> } }).conduct;
}

export const httpScenarios: Scenario[] = [
  {
    name: 'rate-limit-storm',
    summary: '30 concurrent reads against a 5/s read limit: some pass, the rest get 429 rate_limited with Retry-After; after waiting it, reads pass again',
    tags: ['http', 'rate-limit'],
    org: { rate_limits: { reads: 5 } },
    async run(t) {
      const replies = await Promise.all(Array.from({ length: 30 }, () => t.api.call('GET', '/accounts')));
      t.note(`30 concurrent GET /v1/accounts: ${replies.map((r) => r.status).join(' ')}`);
      const limited = replies.filter((r) => r.status === 429);
      await t.expect('some reads passed', replies.some((r) => r.status === 200));
      await t.expect('most were throttled', limited.length >= 20, `${limited.length} × 429`);
      await t.expect('each 429 is rate_limited with a Retry-After', limited.every((r) => errorCode(r.body) === 'rate_limited' && Number(r.headers.get('retry-after')) > 0));
      const wait_s = Math.max(...limited.map((r) => Number(r.headers.get('retry-after'))));
      // Rate limits run on wall time, so Retry-After is honoured in wall time.
      await t.waitWall(wait_s * 1_000 + 50);
      t.expectHttp('a read after Retry-After passes', await t.call('GET', '/accounts'), 200);
      // The storm itself sent requests while earlier 429s' Retry-After was running: conduct must say so.
      const conduct = await conductOf(t);
      await t.expect('conduct reports retry_after_ignored', conduct.findings.some((x) => x.kind === 'retry_after_ignored'), JSON.stringify(conduct.findings.map((x) => x.kind)));
    },
  },
  {
    name: 'idempotency-replay-and-conflict',
    summary: 'Same Idempotency-Key and body replays the same account byte for byte; another body under it is 409 idempotency_key_reuse; a keyless RFQ is 400',
    tags: ['http', 'idempotency'],
    async run(t) {
      const first = await t.call('POST', '/accounts', { body: { label: 'alice' }, idem: 'idem-alice' });
      t.expectHttp('created', first, 200);
      const replay = await t.call('POST', '/accounts', { body: { label: 'alice' }, idem: 'idem-alice' });
      t.expectEqual('replay is the same body', replay.body, first.body);
      const conflict = await t.call('POST', '/accounts', { body: { label: 'bob' }, idem: 'idem-alice' });
      t.expectError(conflict, 'idempotency_key_reuse', 409);
      const conduct = await conductOf(t);
      await t.expect('conduct reports the key reuse', conduct.findings.some((x) => x.kind === 'idempotency_key_reuse'), JSON.stringify(conduct.findings.map((x) => x.kind)));
      const list = (await t.call('GET', '/accounts?limit=100')).body.accounts;
      t.expectEqual('exactly one account exists', list.map((a) => a.label), ['alice']);
      const keyless = await t.call('POST', '/rfqs', { body: { from_asset_key: ETH, to_asset_key: USDC, side: 'exact_in', amount_in_atoms: HALF_ETH, mode: 'indicative' }, idem: null });
      t.expectError(keyless, 'parameter_missing', 400);
      t.expectEqual('names the header', errorOf(keyless.body)?.param, 'Idempotency-Key');
    },
  },
  {
    name: 'lose-response-retry-same-key',
    summary: 'The accept takes effect but its reply is lost (500); the retry with the same Idempotency-Key returns the same trade, and only one trade exists',
    tags: ['http', 'idempotency', 'fault'],
    async run(t) {
      const f = await funded(t);
      const { quote_id } = await t.quote({ ...f, from: ETH, to: USDC, amount_in_atoms: HALF_ETH });
      await t.fault({ target: 'http', effect: { lose_response: true }, match: { method: 'POST', path: '/v1/quotes/*' }, times: 1 });
      const lost = await t.accept(quote_id, { idem: 'accept-once' });
      t.expectError(lost, 'upstream_error', 500);
      const retry = await t.accept(quote_id, { idem: 'accept-once' });
      t.expectHttp('the retry gets the real reply', retry, 200);
      const trade_id = retry.body.trade.trade_id;
      const again = await t.accept(quote_id, { idem: 'accept-twice' });
      t.expectError(again, 'quote_consumed', 409);
      await t.poll('trade', trade_id);
      await t.expectStatus('trade', trade_id, 'settled');
      const executing = await t.events({ account_id: f.account_id, types: 'trade.executing' });
      t.expectEqual('exactly one trade', ofType(executing, 'trade.executing').map((e) => e.data.trade_id), [trade_id]);
      const conduct = await conductOf(t);
      await t.expect('no conduct finding about retrying without the key', !conduct.findings.some((x) => x.kind === 'retry_without_idempotency_key'), JSON.stringify(conduct.findings));
      await t.expectInvariants();
    },
  },
];
