// The core model's command set, as fast-check arbitraries. Targets are picked by index (idx % n) so a
// shrunk sequence stays valid.
import fc from 'fast-check';
import { AdvanceClock } from './commands/advance-clock.ts';
import { CreateAccount } from './commands/create-account.ts';
import { Deposit } from './commands/deposit.ts';
import { OpenDepositAddress } from './commands/open-deposit-address.ts';
import { RegisterDestination } from './commands/register-destination.ts';
import { ToggleSuspension } from './commands/toggle-suspension.ts';
import { WebhookOutage } from './commands/webhook-outage.ts';
import { LongOutage } from './commands/long-outage.ts';
import { DepositAtWindowEdge } from './commands/deposit-at-window-edge.ts';
import type { CoreModel, CoreReal } from './model.ts';

export * from './model.ts';

export function coreCommands(): fc.Arbitrary<fc.AsyncCommand<CoreModel, CoreReal>>[] {
  const idx = fc.nat({ max: 50 });
  return [
    fc.string({ maxLength: 12 }).map((label) => new CreateAccount(label)),
    fc.constantFrom(500, 3_000, 60_000, 3_600_000, 30 * 3_600_000).map((ms) => new AdvanceClock(ms)),
    fc.tuple(idx, idx).map(([a, b]) => new OpenDepositAddress(a, b)),
    fc.tuple(idx, fc.bigInt({ min: 1n, max: 10n ** 20n }), fc.boolean()).map(([a, atoms, flagged]) => new Deposit(a, atoms, flagged)),
    fc.tuple(idx, idx).map(([a, b]) => new RegisterDestination(a, b)),
    idx.map((d) => new ToggleSuspension(d)),
    fc.boolean().map((down) => new WebhookOutage(down)),
    fc.constant(new LongOutage()),
    // Boundary-seeking: the end of a fresh deposit address's monitoring window, one tick before, on it, one tick after.
    fc.tuple(idx, idx, fc.bigInt({ min: 1n, max: 10n ** 20n })).map(([a, b, atoms]) => new DepositAtWindowEdge(a, b, atoms)),
  ];
}

export function initialModel(now_ms: number): CoreModel {
  return { now_ms, accounts: [], addresses: [], deposits: [], destinations: [], outage: false, flagged_sources: 0 };
}
