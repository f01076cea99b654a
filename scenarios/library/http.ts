// HTTP conduct: a rate-limit storm against low limits, idempotent replays and conflicts, and a lost
// response retried with the same Idempotency-Key (exactly one trade).
import type { Scenario } from '../dsl/index.ts';
import { errorCode, errorOf, ETH, HALF_ETH, ofType, USDC, type ScenarioDsl } from '../dsl/index.ts';
import { funded } from './common.ts';

/** The scenario key's conduct report (GET /_sim/conduct declares no response schema; design.md gives its shape). */
async function conductOf(t: ScenarioDsl): Promise<{ findings: Array<{ kind: string }> }> {
  return (
    (await t.sim('GET', `/conduct?api_key=${encodeURIComponent(t.api.api_key)}`)).body as { conduct: { findings: Array<{ kind: string }> } }
  ).conduct;
}

export const httpScenarios: Scenario[] = [
  {
    name: 'rate-limit-storm',
    summary:
      'Three times the read limit in concurrent reads (30 against 5/s): no more pass than the limit allows, the rest get 429 rate_limited with Retry-After; after waiting it, reads pass again',
    tags: ['http', 'rate-limit'],
    org: { rate_limits: { reads: 5 } },
    async run(t) {
      // The organization's own limit (a trigger's is the app's: 100/s unless set otherwise).
      const reads: number = (await t.orgSettings()).rate_limits.reads;
      const n = Math.max(30, 3 * reads);
      const wall_start = t.wallNow();
      // The limit is per second of wall time: on a loaded machine a wave of n may take longer than n / limit
      // seconds to send and pass whole. Waves follow one another until one is refused (at most five): the
      // limiter must refuse once the offered rate outruns it, however slowly the machine offers it.
      const replies: Array<Awaited<ReturnType<typeof t.api.call>>> = [];
      for (let wave = 0; wave < 5 && !replies.some((r) => r.status === 429); wave++) {
        replies.push(...(await Promise.all(Array.from({ length: n }, () => t.api.call('GET', '/accounts', { retry_429: false })))));
      }
      const storm_s = (t.wallNow() - wall_start) / 1_000;
      const codes = new Map<number, number>();
      for (const r of replies) codes.set(r.status, (codes.get(r.status) ?? 0) + 1);
      t.note(
        `${replies.length} GET /v1/accounts (waves of ${n} at once) against ${reads}/s: ${[...codes].map(([status, k]) => `${k} × ${status}`).join(', ')}`,
      );
      const limited = replies.filter((r) => r.status === 429);
      await t.expect(
        'some reads passed',
        replies.some((r) => r.status === 200),
      );
      const passed = replies.filter((r) => r.status === 200).length;
      await t.expect('some were throttled', limited.length > 0, `${limited.length} × 429`);
      // A token bucket lets `reads` through at once and `reads` a second after; a fixed window up to twice
      // `reads` across a window boundary (rate_limit_algorithm, docs/profile.md).
      const profile = (await t.sim('GET', '/profile')).body as { profile?: { rate_limit_algorithm?: string } } | undefined;
      const burst = profile?.profile?.rate_limit_algorithm === 'fixed_window' ? 2 : 1;
      await t.expect(
        `no more passed than ${reads}/s allows over the storm's ${storm_s.toFixed(2)} s`,
        passed <= Math.ceil(reads * (burst + storm_s)),
        `${passed} passed`,
      );
      await t.expect(
        'each 429 is rate_limited with a Retry-After',
        limited.every((r) => errorCode(r.body) === 'rate_limited' && Number(r.headers.get('retry-after')) > 0),
      );
      const wait_s = Math.max(...limited.map((r) => Number(r.headers.get('retry-after'))));
      // Rate limits run on wall time, so Retry-After is honoured in wall time.
      await t.waitWall(wait_s * 1_000 + 50);
      t.expectHttp('a read after Retry-After passes', await t.call('GET', '/accounts', { retry_429: false }), 200);
      // The storm itself sent requests while earlier 429s' Retry-After was running: conduct must say so.
      const conduct = await conductOf(t);
      await t.expect(
        'conduct reports retry_after_ignored',
        conduct.findings.some((x) => x.kind === 'retry_after_ignored'),
        JSON.stringify(conduct.findings.map((x) => x.kind)),
      );
    },
  },
  {
    name: 'idempotency-replay-and-conflict',
    summary:
      'Same Idempotency-Key and body replays the same account byte for byte; another body under it is 409 idempotency_key_reuse; a keyless RFQ is 400',
    tags: ['http', 'idempotency'],
    trigger: { unavailable: 'it checks that its organization holds exactly the one account it made' },
    async run(t) {
      const first = await t.call('POST', '/accounts', { body: { label: 'alice' }, idem: 'idem-alice' });
      t.expectHttp('created', first, 200);
      const replay = await t.call('POST', '/accounts', { body: { label: 'alice' }, idem: 'idem-alice' });
      t.expectEqual('replay is the same body', replay.body, first.body);
      const conflict = await t.call('POST', '/accounts', { body: { label: 'bob' }, idem: 'idem-alice' });
      t.expectError(conflict, 'idempotency_key_reuse', 409);
      const conduct = await conductOf(t);
      await t.expect(
        'conduct reports the key reuse',
        conduct.findings.some((x) => x.kind === 'idempotency_key_reuse'),
        JSON.stringify(conduct.findings.map((x) => x.kind)),
      );
      const list = (await t.call('GET', '/accounts?limit=100')).body.accounts;
      t.expectEqual(
        'exactly one account exists',
        list.map((a) => a.label),
        ['alice'],
      );
      const keyless = await t.call('POST', '/rfqs', {
        body: { from_asset_key: ETH, to_asset_key: USDC, side: 'exact_in', amount_in_atoms: HALF_ETH, mode: 'indicative' },
        idem: null,
      });
      t.expectError(keyless, 'parameter_missing', 400);
      t.expectEqual('names the header', errorOf(keyless.body)?.param, 'Idempotency-Key');
    },
  },
  {
    name: 'lose-response-retry-same-key',
    summary:
      'The accept takes effect but its reply is lost (500); the retry with the same Idempotency-Key returns the same trade, and only one trade exists',
    tags: ['http', 'idempotency', 'fault'],
    async run(t) {
      const f = await funded(t);
      const { quote_id } = await t.quote({ ...f, from: ETH, to: USDC, amount_in_atoms: HALF_ETH });
      // The exact accept path: on a shared server no other quote's accept loses its reply.
      await t.fault({
        target: 'http',
        effect: { lose_response: true },
        match: { method: 'POST', path: `/v1/quotes/${quote_id}/accept` },
        times: 1,
      });
      const lost = await t.accept(quote_id, { idem: t.idem('accept-once') });
      t.expectError(lost, 'upstream_error', 500);
      const retry = await t.accept(quote_id, { idem: t.idem('accept-once') });
      t.expectHttp('the retry gets the real reply', retry, 200);
      const trade_id = retry.body.trade.trade_id;
      const again = await t.accept(quote_id, { idem: t.idem('accept-twice') });
      t.expectError(again, 'quote_consumed', 409);
      await t.poll('trade', trade_id);
      await t.expectStatus('trade', trade_id, 'settled');
      const executing = await t.events({ account_id: f.account_id, types: 'trade.executing' });
      t.expectEqual(
        'exactly one trade',
        ofType(executing, 'trade.executing').map((e) => e.data.trade_id),
        [trade_id],
      );
      const conduct = await conductOf(t);
      await t.expect(
        'no conduct finding about retrying without the key',
        !conduct.findings.some((x) => x.kind === 'retry_without_idempotency_key'),
        JSON.stringify(conduct.findings),
      );
      await t.expectInvariants();
    },
  },
];
