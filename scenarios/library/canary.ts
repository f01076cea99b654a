// The canary: a scenario that MUST fail, proving the runner reports failures (tag `canary`; `--all`
// leaves it out unless asked). If it ever passes, expectations have stopped biting.
import type { Scenario } from '../dsl/index.ts';
import { ETH, ONE_ETH } from '../dsl/index.ts';

export const CANARY_LABEL = 'canary: one deposit of 1 ETH is credited twice';

export const canaryScenarios: Scenario[] = [
  {
    name: 'canary-must-fail',
    summary: 'Expects a 1 ETH deposit to show a 2 ETH balance: must FAIL, proving expectations can fail the run',
    tags: ['canary'],
    trigger: { unavailable: 'it must fail: it proves the runner can fail' },
    async run(t) {
      const account_id = await t.account();
      await t.deposit(account_id, ETH, ONE_ETH);
      await t.expectBalance(account_id, ETH, ONE_ETH);
      const available = (await t.balances(account_id))[ETH]?.available_atoms;
      t.expectEqual(CANARY_LABEL, available, (2n * BigInt(ONE_ETH)).toString());
      t.note('unreachable: the failed expectation above stops the scenario');
    },
  },
];
