// Key export, both ways: integrator-assisted (export-keys) and user-initiated (email OTP), each opened
// with the recipient's private key (HPKE, as an integrator would) and checked against the wallets.
import type { Scenario, ScenarioDsl } from '../dsl/index.ts';
import { ETH, HALF_ETH, ofType, USDC } from '../dsl/index.ts';
import { openWithRecipient, recipientKeys, type RecipientKeys } from './export-recipient.ts';
import { funded } from './common.ts';

/** Every bundle opens with the recipient key and names the wallet address the event lists for its chain. */
async function expectBundlesOpen(
  t: ScenarioDsl,
  keys: Array<{ chain: string; address: string; export_bundle: string }>,
  recipient: RecipientKeys,
  account_id: string,
): Promise<void> {
  const wallets = ofType(await t.events({ account_id, types: 'account.wallet_created' }), 'account.wallet_created')
    .map((e) => `${e.data.chain} ${e.data.address}`)
    .sort();
  t.expectEqual('one key per wallet', keys.map((k) => `${k.chain} ${k.address}`).sort(), wallets);
  const opened = await Promise.all(keys.map((k) => openWithRecipient(k.export_bundle, recipient).catch(() => null)));
  await t.expect(
    'every bundle opens with the recipient key and names its own wallet',
    opened.every(
      (p, i) => p !== null && p.chain === keys[i].chain && p.address === keys[i].address && /^[0-9a-f]{64}$/.test(p.private_key_hex),
    ),
    JSON.stringify(opened.map((p) => p && { chain: p.chain, address: p.address })),
  );
}

export const exportScenarios: Scenario[] = [
  {
    name: 'export-integrator-assisted',
    summary:
      'export-keys while a trade is in flight: export_initiated, the trade settles first, then account.key_exported with bundles that open; no new RFQs',
    tags: ['export', 'account'],
    trigger: { fresh_account: "it exports the account's keys, which is irreversible" },
    async run(t) {
      const recipient = recipientKeys('export-integrator-assisted');
      const f = await funded(t);
      const { trade_id } = await t.trade({ ...f, from: ETH, to: USDC, amount_in_atoms: HALF_ETH });
      const r = await t.export.keys(f.account_id, recipient.public_key_hex);
      t.expectHttp('export started', r, 200);
      t.expectEqual('export_initiated', r.body.account.status, 'export_initiated');
      t.expectError(await t.rfq({ ...f, from: ETH, to: USDC, amount_in_atoms: '100000000000000000' }), 'account_not_operable', 409);
      await t.settle();
      await t.expectStatus('trade', trade_id, 'settled');
      const account = (await t.call('GET', `/accounts/${f.account_id}`)).body.account;
      t.expectEqual('exported', account.status, 'exported');
      const events = await t.expectEvents(f.account_id, f.account_id, [
        'account.export_initiated',
        'trade.settled',
        'account.key_exported',
      ]);
      const [exported] = ofType(events, 'account.key_exported');
      t.expectEqual('export source', exported.data.export_source, 'integrator');
      await expectBundlesOpen(t, exported.data.keys, recipient, f.account_id);
      await t.expectInvariants();
    },
  },
  {
    name: 'export-user-initiated',
    summary: 'The end user exports by email: initiate-export, OTP, complete-export, export-status until exported with keys that open',
    tags: ['export', 'account', 'public'],
    trigger: { fresh_account: "it exports the account's keys, which is irreversible" },
    async run(t) {
      const recipient = recipientKeys('export-user-initiated');
      const account_id = await t.account({ email: 'user@example.com' });
      const started = await t.export.initiate(account_id);
      t.expectHttp('initiated', started, 200);
      const otp = await t.otp(account_id);
      t.expectError(
        await t.export.complete(account_id, otp === '000000' ? '111111' : '000000', recipient.public_key_hex),
        'invalid_otp',
        401,
      );
      const done = await t.export.complete(account_id, otp, recipient.public_key_hex);
      t.expectHttp('completed', done, 200);
      const first = await t.export.status(account_id, otp);
      t.expectEqual('in progress', first.body.status, 'export_initiated');
      await t.advance(first.body.poll_after_ms ?? 1_000);
      await t.settle();
      const status = await t.export.status(account_id, otp);
      t.expectEqual('exported', status.body.status, 'exported');
      await expectBundlesOpen(t, status.body.keys ?? [], recipient, account_id);
      const [exported] = ofType(await t.events({ account_id, types: 'account.key_exported' }), 'account.key_exported');
      t.expectEqual('export source', exported?.data.export_source, 'user_email');
      t.expectError(await t.export.initiate(account_id), 'account_already_exported', 409);
      await t.expectInvariants();
    },
  },
];
