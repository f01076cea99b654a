// Seed data through POST /_sim/init: organizations, webhook, accounts with emails, spendable balances and
// deposits left in flight; a bad file is refused in the envelope, naming the item, and changes nothing; the
// demo world is the same people for the same seed.
import { afterEach, describe, expect, it } from 'vitest';
import { closeAfterEach, startTestSim } from '../testing/harness.ts';
import { startReceiver, verify } from '../../scenarios/dsl/webhook-receiver.ts';
import { demoSeed } from './demo.ts';

const opened = closeAfterEach(afterEach);
const USDC = 'erc20.evm:42161_0xaf88d065e77c8cc2239327c5edb3a432268e5831';
const ETH = 'native.evm:42161';

describe('POST /_sim/init', () => {
  it.each(['own', 'shared'] as const)(
    'builds what the file declares: balances spendable, pending deposits in flight, the webhook signing (org_worlds %s)',
    async (org_worlds) => {
      const sim = opened(await startTestSim({ seed: 'seed-1', org_worlds }));
      const receiver = opened(await startReceiver());
      const r = await sim.control('POST', '/init', {
        organizations: [
          {
            api_key: 'sk_seed_partner_1',
            partner_screening: true,
            webhook: { url: receiver.url },
            accounts: [
              {
                label: 'Ada',
                external_id: 'cust-1',
                email: 'ada@example.com',
                balances: [
                  { asset_key: USDC, atoms: '250000000' },
                  { asset_key: ETH, atoms: '1000000000000000000' },
                ],
                pending_deposits: [{ asset_key: USDC, atoms: '7000000' }],
              },
              { label: 'Grace' },
            ],
          },
          { api_key: sim.api_key, accounts: [{ label: 'in the existing org', balances: [{ asset_key: USDC, atoms: '1000000' }] }] },
        ],
      });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      const [partner, existing] = r.body.organizations;
      expect([partner.created, existing.created]).toEqual([true, false]);
      // A created organization lives in a world of its own that follows the server clock (as one POST
      // /_sim/organizations makes), unless the server keeps its tenants in its own world; the existing one stays put.
      const worlds = sim.running.runtime.worlds;
      expect(worlds.get(partner.organization_id)?.follows).toBe(org_worlds === 'own' ? true : undefined);
      expect(worlds.has(existing.organization_id)).toBe(false);
      const ada = partner.accounts[0].account_id;
      const key = { key: 'sk_seed_partner_1' };
      const account = (await sim.api('GET', `/accounts/${ada}`, key)).body.account;
      expect(account).toMatchObject({ label: 'Ada', external_id: 'cust-1' });
      const balances = (await sim.api('GET', `/accounts/${ada}/balances`, key)).body.balances;
      expect(Object.fromEntries(balances.map((b: any) => [b.asset_key, b.available_atoms]))).toEqual({
        [USDC]: '250000000',
        [ETH]: '1000000000000000000',
      });
      const landed = (await sim.control('GET', `/deposits?account_id=${ada}`)).body.deposits;
      expect(landed.find((d: any) => d.deposit_id === partner.accounts[0].pending_deposit_ids[0]).status).toBe('pending');
      expect((await sim.api('GET', `/accounts/${existing.accounts[0].account_id}/balances`)).body.balances[0].available_atoms).toBe(
        '1000000',
      );
      // The open deposit goes on: settled, it becomes a credit; deliveries are signed with the secret given.
      await sim.settle();
      const after = (await sim.api('GET', `/accounts/${ada}/balances`, key)).body.balances;
      expect(after.find((b: any) => b.asset_key === USDC).available_atoms).toBe('257000000');
      expect(receiver.received.length).toBeGreaterThan(0);
      // Deliveries made during the init came before the test knew the secret: each is checked with it now.
      expect(
        receiver.received.every((x) => verify(partner.webhook.secret, x.headers['svc-timestamp'], x.raw, x.headers['svc-signature'])),
      ).toBe(true);
      expect((await sim.invariants()).ok).toBe(true);
    },
  );

  it('refuses a bad file in the envelope, naming the item, and creates nothing', async () => {
    const sim = opened(await startTestSim({ seed: 'seed-2' }));
    const orgs = async () => (await sim.control('GET', '/organizations')).body.organizations.length;
    const before = await orgs();
    const unknownAsset = await sim.control('POST', '/init', {
      organizations: [
        {
          api_key: 'sk_seed_bad_1',
          accounts: [{ label: 'a' }, { label: 'b', balances: [{ asset_key: 'native.evm:999999', atoms: '1' }] }],
        },
      ],
    });
    expect(unknownAsset.status).toBe(404); // the spec's status for asset_not_supported
    expect(unknownAsset.body.error).toMatchObject({
      code: 'asset_not_supported',
      param: 'organizations.0.accounts.1.balances.0.asset_key',
    });
    const typo = await sim.control('POST', '/init', { organizations: [{ api_key: 'sk_seed_bad_1', acounts: [] }] });
    expect(typo.status).toBe(400);
    expect(typo.body.error).toMatchObject({ code: 'invalid_parameter' });
    expect(typo.body.error.message).toContain('acounts');
    const badHook = await sim.control('POST', '/init', {
      organizations: [{ api_key: 'sk_seed_bad_1', webhook: { url: 'not a url' }, accounts: [{ label: 'a' }] }],
    });
    expect(badHook.status).toBe(400);
    expect(badHook.body.error.param).toMatch(/^organizations\.0\.webhook/);
    expect(await orgs()).toBe(before);
    expect((await sim.api('GET', '/accounts', { key: 'sk_seed_bad_1' })).status).toBe(401);
  });
});

describe('demo seed', () => {
  it('same seed, same people; another seed, other people', () => {
    const a = demoSeed('42', 'sk_sim_demo');
    expect(demoSeed('42', 'sk_sim_demo')).toEqual(a);
    expect(demoSeed('43', 'sk_sim_demo')).not.toEqual(a);
    const people = a.organizations[0].accounts;
    expect(people.length).toBeGreaterThanOrEqual(5);
    for (const p of people) {
      expect(p.label).toMatch(/^\S+ \S+/);
      expect(p.email).toMatch(/^[^@\s]+@[^@\s]+\.[a-z]+$/);
    }
    expect(people.some((p) => (p.balances ?? []).length > 0)).toBe(true);
  });
});
