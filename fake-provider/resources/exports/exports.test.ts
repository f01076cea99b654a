// Key export over real HTTP: the integrator flow (export-keys) and the user's OTP flow (initiate,
// complete, status); every bundle opened with a recipient context and every address re-derived;
// bad target keys, every error code, abuse controls, and an export waiting on a trade in flight.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_PROFILE, type Profile } from '../../profile.ts';
import { startTestSim, type TestSim } from '../../testing/harness.ts';
import { destination, firmQuote, fund, readyAccount } from '../../testing/flows.ts';
import { addressFromPrivateKey, WALLET_CHAINS, type WalletChain } from '../accounts/index.ts';
import { openWithRecipient, recipientKeys } from '../../../scenarios/library/export-recipient.ts';

const KEYS = recipientKeys();
const OTHER_KEYS = recipientKeys('another recipient');
// Room for every public request this file makes from one address; the per-IP limit has its own test.
const ROOMY: Profile = { ...DEFAULT_PROFILE, public_per_ip: { max: 1000, window_ms: 60_000 } };

let sim: TestSim;
beforeAll(async () => {
  sim = await startTestSim({ profile: ROOMY, seed: 'exports' });
});
afterAll(() => sim.close());

const events = (s: TestSim, account_id: string, type: string) =>
  s.running.runtime.world.events.all.filter((e) => e.envelope.account_id === account_id && e.envelope.type === type).map((e) => e.envelope);
const status = async (s: TestSim, account_id: string) => (await s.api('GET', `/accounts/${account_id}`)).body.account.status;
const pub = (s: TestSim, method: string, path: string, body?: unknown) => s.api(method, path, { body, key: null });
const latestOtp = async (s: TestSim, account_id: string): Promise<string> =>
  (await s.control('GET', `/emails?account_id=${account_id}`)).body.emails.at(-1).otp_code;

async function accountWithEmail(s: TestSim): Promise<string> {
  const id = await readyAccount(s);
  expect((await s.api('PATCH', `/accounts/${id}`, { body: { email: 'user@example.com' } })).status).toBe(200);
  return id;
}

/** Opens every bundle with the recipient key and re-derives each address; they must be the announced wallets. */
async function expectKeysControlWallets(
  s: TestSim,
  account_id: string,
  keys: { chain: string; address: string; export_bundle: string }[],
): Promise<void> {
  const announced = new Map(events(s, account_id, 'account.wallet_created').map((e) => [e.data.chain, e.data.address]));
  expect(keys.map((k) => k.chain).sort()).toEqual([...WALLET_CHAINS].sort());
  for (const k of keys) {
    expect(k.export_bundle).toMatch(/^[A-Za-z0-9+/]+=*$/);
    const plain = await openWithRecipient(k.export_bundle, KEYS);
    expect(plain).toMatchObject({ chain: k.chain, address: k.address });
    expect(addressFromPrivateKey(plain.chain as WalletChain, plain.private_key_hex)).toBe(k.address);
    expect(announced.get(k.chain)).toBe(k.address);
  }
  // Sealed to KEYS: another private key cannot open them.
  await expect(openWithRecipient(keys[0]!.export_bundle, OTHER_KEYS)).rejects.toThrow();
}

describe('integrator-assisted export (POST /accounts/{id}/export-keys)', () => {
  it('locks the account, then delivers HPKE bundles whose keys control every wallet address', async () => {
    const id = await readyAccount(sim);
    const r = await sim.api('POST', `/accounts/${id}/export-keys`, { body: { target_public_key: KEYS.public_key_hex }, idem: 'exp-1' });
    expect(r.status).toBe(200);
    expect(r.body.account).toEqual({ account_id: id, status: 'export_initiated' });
    expect(await status(sim, id)).toBe('export_initiated');
    expect(events(sim, id, 'account.export_initiated').map((e) => e.data)).toEqual([{ export_source: 'integrator' }]);
    // A locked account takes no new work.
    expect((await sim.api('POST', `/accounts/${id}/deposit-addresses`, { body: { asset_key: 'native.evm:1' } })).body.error.code).toBe(
      'account_not_operable',
    );
    await sim.settle();
    expect(await status(sim, id)).toBe('exported');
    const [exported] = events(sim, id, 'account.key_exported');
    expect(exported!.data.export_source).toBe('integrator');
    await expectKeysControlWallets(sim, id, exported!.data.keys as never);
    // The same key and body replays the first answer; a new key on the same account is a conflict.
    const again = await sim.api('POST', `/accounts/${id}/export-keys`, { body: { target_public_key: KEYS.public_key_hex }, idem: 'exp-1' });
    expect(again.body).toEqual(r.body);
    const other = await sim.api('POST', `/accounts/${id}/export-keys`, {
      body: { target_public_key: OTHER_KEYS.public_key_hex },
      idem: 'exp-1',
    });
    expect(other.status).toBe(409);
    expect(other.body.error.code).toBe('idempotency_key_reuse');
    const fresh = await sim.api('POST', `/accounts/${id}/export-keys`, { body: { target_public_key: KEYS.public_key_hex } });
    expect(fresh.status).toBe(409);
    expect(fresh.body.error).toMatchObject({ code: 'account_already_exported', type: 'conflict' });
    expect(events(sim, id, 'account.key_exported')).toHaveLength(1);
  });

  it('answers 409 account_already_exported while the export is still in progress', async () => {
    const id = (await sim.api('POST', '/accounts', { body: {} })).body.account.account_id;
    expect((await sim.api('POST', `/accounts/${id}/export-keys`, { body: { target_public_key: KEYS.public_key_hex } })).status).toBe(200);
    const r = await sim.api('POST', `/accounts/${id}/export-keys`, { body: { target_public_key: KEYS.public_key_hex } });
    expect(r.status).toBe(409);
    expect(r.body.error.code).toBe('account_already_exported');
    await sim.settle();
  });

  it('started before the wallets exist, waits for every wallet_created, then exports all of them', async () => {
    const id = (await sim.api('POST', '/accounts', { body: {} })).body.account.account_id;
    expect((await sim.api('POST', `/accounts/${id}/export-keys`, { body: { target_public_key: KEYS.public_key_hex } })).status).toBe(200);
    await sim.advance(DEFAULT_PROFILE.export_sweep_ms + 500);
    expect(events(sim, id, 'account.wallet_created')).toHaveLength(0);
    expect(await status(sim, id)).toBe('export_initiated');
    await sim.settle();
    expect(await status(sim, id)).toBe('exported');
    expect(events(sim, id, 'account.wallet_created')).toHaveLength(WALLET_CHAINS.length);
    await expectKeysControlWallets(sim, id, events(sim, id, 'account.key_exported')[0]!.data.keys as never);
  });

  it('refuses bad target keys with 400 and changes nothing', async () => {
    const id = await readyAccount(sim);
    const good = KEYS.public_key_hex;
    const bad: [unknown, string][] = [
      [good.slice(0, 128), 'invalid_parameter'],
      [`${good}00`, 'invalid_parameter'],
      [`05${good.slice(2)}`, 'invalid_parameter'],
      [`04${'11'.repeat(64)}`, 'invalid_parameter'],
      [`04${'zz'.repeat(64)}`, 'invalid_parameter'],
      [42, 'invalid_parameter'],
      [undefined, 'parameter_missing'],
    ];
    for (const [target_public_key, code] of bad) {
      const r = await sim.api('POST', `/accounts/${id}/export-keys`, { body: { target_public_key } });
      expect(r.status, JSON.stringify(target_public_key)).toBe(400);
      expect(r.body.error).toMatchObject({ code, param: 'target_public_key' });
    }
    expect(await status(sim, id)).toBe('active');
    expect(events(sim, id, 'account.export_initiated')).toEqual([]);
    // Upper-case hex is a valid encoding of the same point.
    expect((await sim.api('POST', `/accounts/${id}/export-keys`, { body: { target_public_key: good.toUpperCase() } })).status).toBe(200);
    await sim.settle();
    await expectKeysControlWallets(sim, id, events(sim, id, 'account.key_exported')[0]!.data.keys as never);
  });

  it('answers 404 for unknown and other organizations’ accounts, 400 without an Idempotency-Key', async () => {
    const id = await readyAccount(sim);
    const body = { target_public_key: KEYS.public_key_hex };
    expect((await sim.api('POST', '/accounts/acct_nope/export-keys', { body })).body.error.code).toBe('account_not_found');
    const other = await sim.newOrg();
    const foreign = await sim.api('POST', `/accounts/${id}/export-keys`, { body, key: other.api_key });
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe('account_not_found');
    const noKey = await sim.api('POST', `/accounts/${id}/export-keys`, { body, idem: '' });
    expect(noKey.status).toBe(400);
    expect(noKey.body.error).toMatchObject({ code: 'parameter_missing', param: 'Idempotency-Key' });
    expect((await sim.api('POST', `/accounts/${id}/export-keys`, { body, key: null })).status).toBe(401);
    expect(await status(sim, id)).toBe('active');
  });

  it('exports a deactivated account when the profile allows it', async () => {
    const id = await readyAccount(sim);
    expect((await sim.api('POST', `/accounts/${id}/deactivate`)).status).toBe(200);
    expect(
      (await sim.api('POST', `/accounts/${id}/export-keys`, { body: { target_public_key: KEYS.public_key_hex } })).body.account.status,
    ).toBe('export_initiated');
    await sim.settle();
    expect(await status(sim, id)).toBe('exported');
  });

  it('stays export_initiated while a trade is in flight, then exports once it settles', async () => {
    const ETH = 'native.evm:42161';
    const USDC = 'erc20.evm:42161_0xaf88d065e77c8cc2239327c5edb3a432268e5831';
    const id = await readyAccount(sim);
    const destination_id = await destination(sim, id, USDC);
    const credit_id = await fund(sim, id, ETH, '1000000000000000000');
    const { quote_id } = await firmQuote(sim, {
      account_id: id,
      credit_id,
      destination_id,
      from: ETH,
      to: USDC,
      amount_in_atoms: '100000000000000000',
    });
    const accepted = await sim.api('POST', `/quotes/${quote_id}/accept`, { body: { slippage_bps: '100' } });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
    const trade_id = accepted.body.trade.trade_id;
    expect((await sim.api('POST', `/accounts/${id}/export-keys`, { body: { target_public_key: KEYS.public_key_hex } })).status).toBe(200);
    await sim.advance(DEFAULT_PROFILE.export_sweep_ms + 1_000);
    expect(['executing', 'filled', 'pending_settle']).toContain((await sim.api('GET', `/trades/${trade_id}`)).body.trade.status);
    expect(await status(sim, id)).toBe('export_initiated');
    expect(events(sim, id, 'account.key_exported')).toEqual([]);
    await sim.settle();
    expect((await sim.api('GET', `/trades/${trade_id}`)).body.trade.status).toBe('settled');
    expect(await status(sim, id)).toBe('exported');
    const [settled] = events(sim, id, 'trade.settled');
    const [exported] = events(sim, id, 'account.key_exported');
    expect(exported!.created_at_ms).toBeGreaterThanOrEqual(settled!.created_at_ms);
    const all = sim.running.runtime.world.events.all.filter((e) => e.envelope.account_id === id).map((e) => e.envelope.type);
    expect(all.indexOf('account.key_exported')).toBeGreaterThan(all.indexOf('trade.settled'));
    await expectKeysControlWallets(sim, id, exported!.data.keys as never);
  });
});

describe('user-initiated export (public endpoints, email OTP)', () => {
  it('initiate → OTP in the inbox → complete → status in progress → exported with the sealed keys', async () => {
    const id = await accountWithEmail(sim);
    const init = await pub(sim, 'POST', '/public/initiate-export', { account_id: id });
    expect(init.status).toBe(200);
    expect(init.body).toMatchObject({ initiated: true });
    expect(init.body.request_id).toMatch(/^req_/);
    const inbox = (await sim.control('GET', `/emails?account_id=${id}`)).body.emails;
    expect(inbox).toHaveLength(1);
    expect(inbox[0]).toMatchObject({ account_id: id, email: 'user@example.com', purpose: 'export' });
    const otp = inbox[0].otp_code as string;
    expect(otp).toMatch(/^[0-9]{6}$/);
    expect((await pub(sim, 'GET', `/public/export-status?account_id=${id}&otp_code=${otp}`)).body.error.code).toBe('export_not_found');

    const wrong = otp === '000000' ? '000001' : '000000';
    const bad = await pub(sim, 'POST', '/public/complete-export', {
      account_id: id,
      otp_code: wrong,
      target_public_key: KEYS.public_key_hex,
    });
    expect(bad.status).toBe(401);
    expect(bad.body.error).toMatchObject({ code: 'invalid_otp', type: 'authentication_error' });
    const badKey = await pub(sim, 'POST', '/public/complete-export', {
      account_id: id,
      otp_code: otp,
      target_public_key: `05${KEYS.public_key_hex.slice(2)}`,
    });
    expect(badKey.status).toBe(400);
    expect(badKey.body.error).toMatchObject({ code: 'invalid_parameter', param: 'target_public_key' });
    expect(await status(sim, id)).toBe('active');

    const done = await pub(sim, 'POST', '/public/complete-export', {
      account_id: id,
      otp_code: otp,
      target_public_key: KEYS.public_key_hex,
    });
    expect(done.status).toBe(200);
    expect(done.body.account).toEqual({ account_id: id, status: 'export_initiated' });
    expect(events(sim, id, 'account.export_initiated').map((e) => e.data)).toEqual([{ export_source: 'user_email' }]);
    const progress = await pub(sim, 'GET', `/public/export-status?account_id=${id}&otp_code=${otp}`);
    expect(progress.status).toBe(200);
    expect(progress.body.status).toBe('export_initiated');
    expect(progress.body.poll_after_ms).toBeGreaterThanOrEqual(DEFAULT_PROFILE.poll_after_ms.min);
    expect(progress.body.poll_after_ms).toBeLessThanOrEqual(DEFAULT_PROFILE.poll_after_ms.max);
    expect(progress.body).not.toHaveProperty('keys');

    // The OTP is single-use for completion; after it, both public starts are conflicts.
    const twice = await pub(sim, 'POST', '/public/complete-export', {
      account_id: id,
      otp_code: otp,
      target_public_key: KEYS.public_key_hex,
    });
    expect(twice.status).toBe(409);
    expect(twice.body.error.code).toBe('account_already_exported');
    const reinit = await pub(sim, 'POST', '/public/initiate-export', { account_id: id });
    expect(reinit.status).toBe(409);
    expect(reinit.body.error.code).toBe('account_already_exported');

    await sim.settle();
    const final = await pub(sim, 'GET', `/public/export-status?account_id=${id}&otp_code=${otp}`);
    expect(final.status).toBe(200);
    expect(final.body.status).toBe('exported');
    const [exported] = events(sim, id, 'account.key_exported');
    expect(exported!.data.export_source).toBe('user_email');
    expect(final.body.keys).toEqual(exported!.data.keys);
    await expectKeysControlWallets(sim, id, final.body.keys);
    const wrongProof = await pub(sim, 'GET', `/public/export-status?account_id=${id}&otp_code=${wrong}`);
    expect(wrongProof.status).toBe(401);
    expect(wrongProof.body.error.code).toBe('invalid_otp');
  });

  it('expires OTPs (otp_expired), and a new initiation supersedes the previous OTP', async () => {
    const id = await accountWithEmail(sim);
    await pub(sim, 'POST', '/public/initiate-export', { account_id: id });
    const first = await latestOtp(sim, id);
    await sim.advance(DEFAULT_PROFILE.otp_validity_ms);
    const expired = await pub(sim, 'POST', '/public/complete-export', {
      account_id: id,
      otp_code: first,
      target_public_key: KEYS.public_key_hex,
    });
    expect(expired.status).toBe(401);
    expect(expired.body.error.code).toBe('otp_expired');
    expect(await status(sim, id)).toBe('active');
    await pub(sim, 'POST', '/public/initiate-export', { account_id: id });
    const second = await latestOtp(sim, id);
    if (second !== first) {
      const old = await pub(sim, 'POST', '/public/complete-export', {
        account_id: id,
        otp_code: first,
        target_public_key: KEYS.public_key_hex,
      });
      expect(old.body.error.code).toBe('invalid_otp');
    }
    expect(
      (await pub(sim, 'POST', '/public/complete-export', { account_id: id, otp_code: second, target_public_key: KEYS.public_key_hex }))
        .status,
    ).toBe(200);
    await sim.settle();
  });

  it('answers every documented public error code', async () => {
    const noEmail = await readyAccount(sim);
    const r422 = await pub(sim, 'POST', '/public/initiate-export', { account_id: noEmail });
    expect(r422.status).toBe(422);
    expect(r422.body.error.code).toBe('email_not_configured');
    expect(await sim.control('GET', `/emails?account_id=${noEmail}`).then((r) => r.body.emails)).toEqual([]);
    const r404 = await pub(sim, 'POST', '/public/initiate-export', { account_id: 'acct_nope' });
    expect(r404.status).toBe(404);
    expect(r404.body.error.code).toBe('account_not_found');
    expect((await pub(sim, 'POST', '/public/initiate-export', {})).body.error).toMatchObject({
      code: 'parameter_missing',
      param: 'account_id',
    });
    // An unknown account has no OTP to match.
    const unknown = await pub(sim, 'POST', '/public/complete-export', {
      account_id: 'acct_nope',
      otp_code: '123456',
      target_public_key: KEYS.public_key_hex,
    });
    expect(unknown.status).toBe(401);
    expect(unknown.body.error.code).toBe('invalid_otp');
    // An account that never initiated has no OTP either.
    expect(
      (
        await pub(sim, 'POST', '/public/complete-export', {
          account_id: noEmail,
          otp_code: '123456',
          target_public_key: KEYS.public_key_hex,
        })
      ).body.error.code,
    ).toBe('invalid_otp');
    expect(
      (await pub(sim, 'POST', '/public/complete-export', { account_id: noEmail, target_public_key: KEYS.public_key_hex })).body.error,
    ).toMatchObject({ code: 'parameter_missing', param: 'otp_code' });
    expect((await pub(sim, 'GET', '/public/export-status?account_id=acct_nope&otp_code=123456')).body.error.code).toBe('export_not_found');
    expect((await pub(sim, 'GET', `/public/export-status?account_id=${noEmail}`)).body.error).toMatchObject({
      code: 'parameter_missing',
      param: 'otp_code',
    });
    // An integrator export has no OTP: nothing proves a session for it.
    const integrator = await readyAccount(sim);
    await sim.api('POST', `/accounts/${integrator}/export-keys`, { body: { target_public_key: KEYS.public_key_hex } });
    expect((await pub(sim, 'GET', `/public/export-status?account_id=${integrator}&otp_code=123456`)).body.error.code).toBe('invalid_otp');
    const busy = await pub(sim, 'POST', '/public/initiate-export', { account_id: integrator });
    expect(busy.status).toBe(409);
    expect(busy.body.error.code).toBe('account_already_exported');
    await sim.settle();
  });

  it('limits initiations per account (429 rate_limited with Retry-After), on sim time', async () => {
    const id = await accountWithEmail(sim);
    const { max, window_ms } = DEFAULT_PROFILE.public_initiate_per_account;
    for (let i = 0; i < max; i++) expect((await pub(sim, 'POST', '/public/initiate-export', { account_id: id })).status).toBe(200);
    const limited = await pub(sim, 'POST', '/public/initiate-export', { account_id: id });
    expect(limited.status).toBe(429);
    expect(limited.body.error).toMatchObject({ code: 'rate_limited', type: 'rate_limit_error' });
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(Number(limited.headers.get('retry-after'))).toBeLessThanOrEqual(window_ms / 1000);
    expect((await sim.control('GET', `/emails?account_id=${id}`)).body.emails).toHaveLength(max);
    await sim.advance(window_ms);
    expect((await pub(sim, 'POST', '/public/initiate-export', { account_id: id })).status).toBe(200);
  });

  it('burns the OTP after otp_max_attempts wrong codes: even the right code is invalid_otp until a new initiation', async () => {
    const max = ROOMY.otp_max_attempts;
    const id = await accountWithEmail(sim);
    const complete = (otp_code: string) =>
      pub(sim, 'POST', '/public/complete-export', { account_id: id, otp_code, target_public_key: KEYS.public_key_hex });
    const wrongFor = (code: string) => (code === '000000' ? '000001' : '000000');
    expect((await pub(sim, 'POST', '/public/initiate-export', { account_id: id })).status).toBe(200);
    const otp = await latestOtp(sim, id);
    for (let i = 1; i < max; i++) {
      const r = await complete(wrongFor(otp));
      expect(r.status).toBe(401);
      expect(r.body.error.message).not.toMatch(/no longer works/);
    }
    const burning = await complete(wrongFor(otp));
    expect(burning.body.error).toMatchObject({ code: 'invalid_otp', param: 'otp_code' });
    expect(burning.body.error.message).toMatch(/no longer works/);
    const right = await complete(otp);
    expect(right.status).toBe(401);
    expect(right.body.error.code).toBe('invalid_otp');
    expect(await status(sim, id)).toBe('active');
    // A new initiation emails a fresh OTP with a fresh count: max - 1 wrong codes leave it working.
    expect((await pub(sim, 'POST', '/public/initiate-export', { account_id: id })).status).toBe(200);
    const fresh = await latestOtp(sim, id);
    for (let i = 1; i < max; i++) expect((await complete(wrongFor(fresh))).status).toBe(401);
    expect((await complete(fresh)).status).toBe(200);
    await sim.settle();
    expect(await status(sim, id)).toBe('exported');
  });

  it('keeps every invariant', async () => {
    expect(await sim.invariants()).toMatchObject({ ok: true, violations: [] });
  });
});

describe('profile settings', () => {
  it('limits public export requests per client address (429 on every public export endpoint)', async () => {
    const s = await startTestSim({ profile: { ...DEFAULT_PROFILE, public_per_ip: { max: 3, window_ms: 60_000 } }, seed: 'exports-ip' });
    try {
      for (let i = 0; i < 3; i++) expect((await pub(s, 'GET', '/public/export-status?account_id=acct_nope&otp_code=1')).status).toBe(404);
      for (const [method, path, body] of [
        ['GET', '/public/export-status?account_id=acct_nope&otp_code=1', undefined],
        ['POST', '/public/initiate-export', { account_id: 'acct_nope' }],
        ['POST', '/public/complete-export', { account_id: 'acct_nope', otp_code: '1', target_public_key: KEYS.public_key_hex }],
      ] as const) {
        const r = await pub(s, method, path, body);
        expect(r.status, path).toBe(429);
        expect(r.body.error.code).toBe('rate_limited');
        expect(r.headers.get('retry-after')).toBe('60');
      }
      await s.advance(60_000);
      expect((await pub(s, 'GET', '/public/export-status?account_id=acct_nope&otp_code=1')).status).toBe(404);
    } finally {
      await s.close();
    }
  });

  it('refuses exports of deactivated accounts with 409 account_not_operable when deactivated_allows_export is false', async () => {
    const s = await startTestSim({ profile: { ...DEFAULT_PROFILE, deactivated_allows_export: false }, seed: 'exports-deactivated' });
    try {
      const id = await accountWithEmail(s);
      expect((await s.api('POST', `/accounts/${id}/deactivate`)).status).toBe(200);
      const keys = await s.api('POST', `/accounts/${id}/export-keys`, { body: { target_public_key: KEYS.public_key_hex } });
      expect(keys.status).toBe(409);
      expect(keys.body.error.code).toBe('account_not_operable');
      const init = await pub(s, 'POST', '/public/initiate-export', { account_id: id });
      expect(init.status).toBe(409);
      expect(init.body.error.code).toBe('account_not_operable');
      expect((await s.control('GET', `/emails?account_id=${id}`)).body.emails).toEqual([]);
      expect(await status(s, id)).toBe('deactivated');
      expect(await s.invariants()).toMatchObject({ ok: true });
    } finally {
      await s.close();
    }
  });
});
