// Destinations over real HTTP: registration per chain (format checks, screening, symbol form), list with
// filter and cursors, DELETE in both profile variants, 404s, and the /_sim suspend/reactivate lifecycle.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256 } from '@noble/hashes/sha2.js';
import { utf8ToBytes } from '@noble/hashes/utils.js';
import { createBase58check } from '@scure/base';
import { startTestSim, type TestSim } from '../../testing/harness.ts';
import { DEFAULT_PROFILE } from '../../profile.ts';
import { deriveWallet, WALLET_CHAINS } from '../accounts/index.ts';
import { recipientKeys } from '../../../scenarios/library/export-recipient.ts';
import { nativeAssetOf } from '../assets/catalog.ts';

import { destinationStatus, getDestinationRecord } from './index.ts';

const seed = (label: string): Uint8Array => sha256(utf8ToBytes(label));
const addressOf = (chain: (typeof WALLET_CHAINS)[number], label = 'dest'): string => deriveWallet(chain, seed(`${label}:${chain}`)).address;
const ETH = 'native.evm:1';
const BTC = 'native.btc';
const ARB_USDC = 'erc20.evm:42161_0xaf88d065e77c8cc2239327c5edb3a432268e5831';

// Many writes per test, in wall-clock milliseconds: lift the per-key limits (rate limiting is tested elsewhere).
const RATE_LIMITS = { reads: 100_000, writes: 100_000 };
const open = (opts: Parameters<typeof startTestSim>[0] = {}) =>
  startTestSim({ ...opts, seed_orgs: [{ api_keys: ['sk_test_default'], rate_limits: RATE_LIMITS }] });

let sim: TestSim;
beforeAll(async () => {
  sim = await open();
});
afterAll(() => sim.close());

const world = () => sim.running.runtime.world;
const newAccount = async (key?: string): Promise<string> => (await sim.api('POST', '/accounts', { body: {}, key })).body.account.account_id;
const register = (account_id: string, body: Record<string, unknown>, key?: string | null) =>
  sim.api('POST', `/accounts/${account_id}/destinations`, { body, key });
const listAll = async (account_id: string): Promise<any[]> =>
  (await sim.api('GET', `/accounts/${account_id}/destinations?limit=100`)).body.destinations;
const destinationEvents = (destination_id: string) =>
  world()
    .events.all.filter((e) => e.envelope.type.startsWith('destination.') && e.envelope.data.destination_id === destination_id)
    .map((e) => e.envelope);
const nowMs = async (): Promise<number> => (await sim.control('GET', '/clock')).body.clock.now_ms;

describe('POST /accounts/:account_id/destinations', () => {
  it('registers a real-format address on every chain and answers the full destination', async () => {
    const acct = await newAccount();
    for (const chain of WALLET_CHAINS) {
      const asset_key = nativeAssetOf(chain).asset_key;
      const address = addressOf(chain);
      const r = await register(acct, { asset_key, address });
      expect(r.status).toBe(200);
      expect(r.body.request_id).toMatch(/^req_/);
      expect(r.body.destination).toEqual({
        destination_id: expect.stringMatching(/^dest_/),
        asset_key,
        address,
        memo: null,
        tag: null,
        label: null,
        suspended_at_ms: null,
        suspension_reason: null,
      });
    }
    // The other address forms each chain accepts, and optional fields echoed back on a token asset.
    const zecT3 = createBase58check(sha256).encode(Uint8Array.from([0x1c, 0xbd, ...seed('t3').subarray(0, 20)]));
    const more: Array<[string, string]> = [
      [BTC, '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa'],
      [BTC, '3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy'],
      [BTC, 'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0'],
      ['native.zec', zecT3],
      [ETH, addressOf('evm:1').toLowerCase()],
      ['spl.solana:EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v', addressOf('solana', 'spl')],
    ];
    for (const [asset_key, address] of more) expect((await register(acct, { asset_key, address })).status).toBe(200);
    const full = await register(acct, {
      asset_key: ARB_USDC,
      address: addressOf('evm:42161'),
      memo: 'm-1',
      tag: '42',
      label: 'cold wallet',
    });
    expect(full.body.destination).toMatchObject({ asset_key: ARB_USDC, memo: 'm-1', tag: '42', label: 'cold wallet' });
    expect(await listAll(acct)).toHaveLength(WALLET_CHAINS.length + more.length + 1);
  });

  it('rejects malformed addresses per chain with invalid_parameter on address, creating nothing', async () => {
    const acct = await newAccount();
    const bad: Array<[string, string]> = [
      [ETH, '0x7e5f4552091a69125d5dfcb7b8c2659029395bd'],
      [ETH, addressOf('btc')],
      ['native.evm:42161', 'not-an-address'],
      [BTC, 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kemeawh'],
      [BTC, 'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx'],
      [BTC, '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNb'],
      [BTC, addressOf('evm:1')],
      ['native.solana', '1111111111111111111111111111111'],
      ['native.solana', addressOf('evm:1')],
      ['native.zec', 't1Hsc1LR8yKnbbe3twRp88p6vFfC5t7DLbt'],
      ['native.zec', addressOf('btc')],
    ];
    for (const [asset_key, address] of bad) {
      const r = await register(acct, { asset_key, address });
      expect(r.status, `${asset_key} ${address}`).toBe(400);
      expect(r.body.error).toMatchObject({ code: 'invalid_parameter', param: 'address', type: 'invalid_request' });
    }
    expect(await listAll(acct)).toEqual([]);
  });

  it('rejects a mixed-case EVM address whose EIP-55 checksum is wrong', async () => {
    const acct = await newAccount();
    const good = addressOf('evm:1', 'checksum');
    // Flip the case of the first hex letter: still mixed case, no longer the EIP-55 casing.
    const i = good.slice(2).search(/[a-fA-F]/) + 2;
    const flipped =
      good.slice(0, i) + (good[i] === good[i].toUpperCase() ? good[i].toLowerCase() : good[i].toUpperCase()) + good.slice(i + 1);
    expect(flipped).not.toBe(good);
    const r = await register(acct, { asset_key: ETH, address: flipped });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ code: 'invalid_parameter', param: 'address' });
    expect(r.body.error.message).toMatch(/EIP-55/);
    expect((await register(acct, { asset_key: ETH, address: good })).status).toBe(200);
  });

  it('rejects a flagged address with 403 destination_screening_failed and creates nothing', async () => {
    const acct = await newAccount();
    const address = addressOf('evm:1', 'sanctioned');
    // Flagged in lowercase, registered in EIP-55 casing: EVM screening ignores case.
    expect(
      (await sim.control('POST', '/screening/addresses', { address: address.toLowerCase(), flag_reason: 'sanctions_match' })).status,
    ).toBe(200);
    const before = world().transitions.records.length;
    const r = await register(acct, { asset_key: ETH, address });
    expect(r.status).toBe(403);
    expect(r.body.error).toMatchObject({
      code: 'destination_screening_failed',
      param: 'address',
      details: { flag_reason: 'sanctions_match' },
    });
    expect(await listAll(acct)).toEqual([]);
    expect(world().transitions.records.length).toBe(before);
    const btc = addressOf('btc', 'mixer');
    await sim.control('POST', '/screening/addresses', { address: btc, flag_reason: 'mixer_association' });
    expect((await register(acct, { asset_key: BTC, address: btc })).body.error.details).toEqual({ flag_reason: 'mixer_association' });
    // Once screening clears the address, registration passes.
    await sim.control('DELETE', `/screening/addresses/${encodeURIComponent(btc)}`);
    expect((await register(acct, { asset_key: BTC, address: btc })).status).toBe(200);
  });

  it('accepts the symbol form and answers the asset_key; symbol errors keep their codes', async () => {
    const acct = await newAccount();
    expect((await sim.api('PUT', '/symbols', { body: { symbols: [{ symbol: 'ArbUSDC', asset_key: ARB_USDC }] } })).status).toBe(200);
    const r = await register(acct, { symbol: 'ArbUSDC', address: addressOf('evm:42161', 'sym') });
    expect(r.status).toBe(200);
    expect(r.body.destination.asset_key).toBe(ARB_USDC);
    expect(r.body.destination).not.toHaveProperty('symbol');
    expect((await register(acct, { symbol: 'NOPE', address: addressOf('evm:1') })).body.error).toMatchObject({
      code: 'symbol_not_found',
      param: 'symbol',
    });
    expect((await register(acct, { symbol: '-x', address: addressOf('evm:1') })).body.error).toMatchObject({
      code: 'invalid_symbol',
      param: 'symbol',
    });
  });

  it('checks the asset pair and every body field before creating anything', async () => {
    const acct = await newAccount();
    const address = addressOf('evm:1');
    const cases: Array<[Record<string, unknown>, number, string, string]> = [
      [{ asset_key: ETH, symbol: 'ETH', address }, 400, 'invalid_parameter', 'symbol'],
      [{ address }, 400, 'parameter_missing', 'asset_key'],
      [{ asset_key: ETH }, 400, 'parameter_missing', 'address'],
      [{ asset_key: ETH, address: '' }, 400, 'invalid_parameter', 'address'],
      [{ asset_key: ETH, address: 42 }, 400, 'invalid_parameter', 'address'],
      [{ asset_key: 'ETH', address }, 400, 'invalid_asset_key', 'asset_key'],
      [{ asset_key: 'native.evm:10', address }, 404, 'asset_not_supported', 'asset_key'],
      [{ asset_key: ETH, address, memo: 'x'.repeat(257) }, 400, 'invalid_parameter', 'memo'],
      [{ asset_key: ETH, address, tag: 7 }, 400, 'invalid_parameter', 'tag'],
      [{ asset_key: ETH, address, label: null }, 400, 'invalid_parameter', 'label'],
    ];
    for (const [body, status, code, param] of cases) {
      const r = await register(acct, body);
      expect(r.status, JSON.stringify(body)).toBe(status);
      expect(r.body.error, JSON.stringify(body)).toMatchObject({ code, param });
    }
    expect(await listAll(acct)).toEqual([]);
  });

  it('needs no Idempotency-Key, and each POST registers a new destination', async () => {
    const acct = await newAccount();
    const a = await register(acct, { asset_key: ETH, address: addressOf('evm:1') });
    const b = await sim.api('POST', `/accounts/${acct}/destinations`, { body: { asset_key: ETH, address: addressOf('evm:1') }, idem: '' });
    expect(b.status).toBe(200);
    expect(b.body.destination.destination_id).not.toBe(a.body.destination.destination_id);
  });

  it('answers 404 account_not_found for unknown accounts and other organizations’ accounts', async () => {
    const acct = await newAccount();
    const other = await sim.newOrg({ rate_limits: RATE_LIMITS });
    const body = { asset_key: ETH, address: addressOf('evm:1') };
    for (const r of [await register('acct_nope', body), await register(acct, body, other.api_key)]) {
      expect(r.status).toBe(404);
      expect(r.body.error).toMatchObject({ code: 'account_not_found', param: 'account_id' });
    }
    expect((await sim.api('GET', `/accounts/${acct}/destinations`, { key: other.api_key })).body.error.code).toBe('account_not_found');
    expect((await sim.api('DELETE', `/accounts/${acct}/destinations/dest_x`, { key: other.api_key })).body.error.code).toBe(
      'account_not_found',
    );
    expect((await register(acct, body, null)).status).toBe(401);
  });

  it('still registers on a deactivated account, and refuses an exporting account with account_not_operable', async () => {
    const deact = await newAccount();
    await sim.api('POST', `/accounts/${deact}/deactivate`);
    expect((await register(deact, { asset_key: ETH, address: addressOf('evm:1') })).status).toBe(200);
    const exporting = await newAccount();
    const exported = await sim.api('POST', `/accounts/${exporting}/export-keys`, {
      body: { target_public_key: recipientKeys().public_key_hex },
    });
    expect(exported.body.account).toMatchObject({ status: 'export_initiated' });
    const r = await register(exporting, { asset_key: ETH, address: addressOf('evm:1') });
    expect(r.status).toBe(409);
    expect(r.body.error).toMatchObject({ code: 'account_not_operable', details: { status: 'export_initiated' } });
    expect(await listAll(exporting)).toEqual([]);
  });
});

describe('GET /accounts/:account_id/destinations', () => {
  it('filters by asset_key and pages with cursors, every item once', async () => {
    const acct = await newAccount();
    const ids: Record<string, string[]> = { [ETH]: [], [BTC]: [] };
    for (let i = 0; i < 3; i++)
      ids[ETH].push((await register(acct, { asset_key: ETH, address: addressOf('evm:1', `p${i}`) })).body.destination.destination_id);
    for (let i = 0; i < 2; i++)
      ids[BTC].push((await register(acct, { asset_key: BTC, address: addressOf('btc', `p${i}`) })).body.destination.destination_id);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const r: any = await sim.api('GET', `/accounts/${acct}/destinations?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(r.status).toBe(200);
      expect(r.body.destinations.length).toBeLessThanOrEqual(2);
      seen.push(...r.body.destinations.map((d: any) => d.destination_id));
      cursor = r.body.next_cursor;
      expect(r.body.has_more).toBe(cursor !== null);
    } while (cursor);
    expect(seen).toEqual([...ids[ETH], ...ids[BTC]]);
    const btc = await sim.api('GET', `/accounts/${acct}/destinations?asset_key=${BTC}`);
    expect(btc.body).toMatchObject({ has_more: false, next_cursor: null });
    expect(btc.body.destinations.map((d: any) => d.destination_id)).toEqual(ids[BTC]);
    expect((await sim.api('GET', `/accounts/${acct}/destinations?asset_key=native.evm:10`)).body.destinations).toEqual([]);
    // Another account's destinations never show.
    expect(await listAll(await newAccount())).toEqual([]);
  });

  it('rejects a bad asset_key, limit or cursor', async () => {
    const acct = await newAccount();
    expect((await sim.api('GET', `/accounts/${acct}/destinations?asset_key=ETH`)).body.error).toMatchObject({
      code: 'invalid_asset_key',
      param: 'asset_key',
    });
    expect((await sim.api('GET', `/accounts/${acct}/destinations?limit=0`)).body.error).toMatchObject({
      code: 'invalid_parameter',
      param: 'limit',
    });
    expect((await sim.api('GET', `/accounts/${acct}/destinations?limit=101`)).body.error).toMatchObject({
      code: 'invalid_parameter',
      param: 'limit',
    });
    expect((await sim.api('GET', `/accounts/${acct}/destinations?cursor=nonsense`)).body.error).toMatchObject({
      code: 'invalid_parameter',
      param: 'cursor',
    });
    expect((await sim.api('GET', '/accounts/acct_nope/destinations')).status).toBe(404);
  });
});

describe('DELETE /accounts/:account_id/destinations/:destination_id', () => {
  it('answers 204 with no body by default; the destination leaves the list but its record stays', async () => {
    const acct = await newAccount();
    const keep = (await register(acct, { asset_key: ETH, address: addressOf('evm:1', 'keep') })).body.destination;
    const gone = (await register(acct, { asset_key: ETH, address: addressOf('evm:1', 'gone') })).body.destination;
    const r = await sim.api('DELETE', `/accounts/${acct}/destinations/${gone.destination_id}`);
    expect(r.status).toBe(204);
    expect(r.body).toBeUndefined();
    expect((await listAll(acct)).map((d) => d.destination_id)).toEqual([keep.destination_id]);
    const record = getDestinationRecord(world(), gone.destination_id)!;
    expect(record.address).toBe(gone.address);
    expect(destinationStatus(record)).toBe('deleted');
    const again = await sim.api('DELETE', `/accounts/${acct}/destinations/${gone.destination_id}`);
    expect(again.status).toBe(404);
    expect(again.body.error).toMatchObject({ code: 'destination_not_found', param: 'destination_id' });
  });

  it('answers 404 destination_not_found for unknown ids, another account’s and another organization’s', async () => {
    const acct = await newAccount();
    const sibling = await newAccount();
    const d = (await register(acct, { asset_key: ETH, address: addressOf('evm:1') })).body.destination;
    const other = await sim.newOrg({ rate_limits: RATE_LIMITS });
    const theirs = await newAccount(other.api_key);
    const tries = [
      await sim.api('DELETE', `/accounts/${acct}/destinations/dest_nope`),
      await sim.api('DELETE', `/accounts/${sibling}/destinations/${d.destination_id}`),
      await sim.api('DELETE', `/accounts/${theirs}/destinations/${d.destination_id}`, { key: other.api_key }),
    ];
    for (const r of tries) {
      expect(r.status).toBe(404);
      expect(r.body.error.code).toBe('destination_not_found');
    }
    expect((await listAll(acct)).map((x) => x.destination_id)).toEqual([d.destination_id]);
  });

  it('answers 200 {destination, deleted: true} when the profile says delete_destination_status 200', async () => {
    const sim200 = await open({ profile: { ...DEFAULT_PROFILE, delete_destination_status: 200 } });
    try {
      const acct = (await sim200.api('POST', '/accounts', { body: {} })).body.account.account_id;
      const d = (await sim200.api('POST', `/accounts/${acct}/destinations`, { body: { asset_key: ETH, address: addressOf('evm:1') } })).body
        .destination;
      const r = await sim200.api('DELETE', `/accounts/${acct}/destinations/${d.destination_id}`);
      expect(r.status).toBe(200);
      expect(r.body).toEqual({ request_id: expect.stringMatching(/^req_/), destination: d, deleted: true });
      expect((await sim200.api('GET', `/accounts/${acct}/destinations`)).body.destinations).toEqual([]);
      expect((await sim200.api('DELETE', `/accounts/${acct}/destinations/${d.destination_id}`)).status).toBe(404);
    } finally {
      await sim200.close();
    }
  });
});

describe('/_sim destination suspend and reactivate', () => {
  it('suspends and reactivates with their events in order; repeats are idempotent', async () => {
    const acct = await newAccount();
    const d = (await register(acct, { asset_key: BTC, address: addressOf('btc', 'susp') })).body.destination;
    const id = d.destination_id;
    const t1 = await nowMs();
    const s1 = await sim.control('POST', `/destinations/${id}/suspend`, { reason: 'sanctions_match' });
    expect(s1.status).toBe(200);
    expect(s1.body.destination).toEqual({ ...d, suspended_at_ms: t1, suspension_reason: 'sanctions_match' });
    // Suspending again later with another reason keeps the first suspension and fires nothing.
    await sim.advance(5_000);
    const s2 = await sim.control('POST', `/destinations/${id}/suspend`, { reason: 'high_risk_score' });
    expect(s2.body.destination).toMatchObject({ suspended_at_ms: t1, suspension_reason: 'sanctions_match' });
    expect((await listAll(acct))[0]).toMatchObject({ destination_id: id, suspended_at_ms: t1, suspension_reason: 'sanctions_match' });
    const r1 = await sim.control('POST', `/destinations/${id}/reactivate`);
    expect(r1.status).toBe(200);
    expect(r1.body.destination).toEqual(d);
    expect((await sim.control('POST', `/destinations/${id}/reactivate`)).body.destination).toEqual(d);
    await sim.advance(1_000);
    const t3 = await nowMs();
    await sim.control('POST', `/destinations/${id}/suspend`, { reason: 'mixer_association' });
    const events = destinationEvents(id);
    expect(events.map((e) => e.type)).toEqual(['destination.suspended', 'destination.reactivated', 'destination.suspended']);
    expect(events.map((e) => e.data)).toEqual([
      { destination_id: id, suspended_at_ms: t1, suspension_reason: 'sanctions_match' },
      { destination_id: id },
      { destination_id: id, suspended_at_ms: t3, suspension_reason: 'mixer_association' },
    ]);
    expect(events.every((e) => e.account_id === acct)).toBe(true);
    const path = world()
      .transitions.records.filter((r) => r.entity_id === id)
      .map((r) => `${r.from}>${r.to}`);
    expect(path).toEqual(['null>usable', 'usable>suspended', 'suspended>usable', 'usable>suspended']);
    // A suspended destination can still be deleted; afterwards the controls no longer find it.
    expect((await sim.api('DELETE', `/accounts/${acct}/destinations/${id}`)).status).toBe(204);
    expect((await sim.control('POST', `/destinations/${id}/reactivate`)).body.error.code).toBe('destination_not_found');
    expect(await sim.invariants()).toMatchObject({ ok: true, violations: [] });
  });

  it('answers 404 for unknown destinations and 400 without a reason', async () => {
    const acct = await newAccount();
    const d = (await register(acct, { asset_key: ETH, address: addressOf('evm:1') })).body.destination;
    for (const r of [
      await sim.control('POST', '/destinations/dest_nope/suspend', { reason: 'x' }),
      await sim.control('POST', '/destinations/dest_nope/reactivate'),
    ]) {
      expect(r.status).toBe(404);
      expect(r.body.error).toMatchObject({ code: 'destination_not_found', param: 'destination_id' });
    }
    expect((await sim.control('POST', `/destinations/${d.destination_id}/suspend`, {})).body.error).toMatchObject({
      code: 'parameter_missing',
      param: 'reason',
    });
    expect((await sim.control('POST', `/destinations/${d.destination_id}/suspend`, { reason: '' })).body.error).toMatchObject({
      code: 'invalid_parameter',
      param: 'reason',
    });
    expect(destinationEvents(d.destination_id)).toEqual([]);
  });

  it('keeps every invariant', async () => {
    expect(await sim.invariants()).toMatchObject({ ok: true, violations: [] });
  });
});
