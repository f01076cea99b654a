// The account lifecycle (spec: States → Account): active → deactivated | export_initiated → exported.
// Wallet derivation per chain is a self-event in every live state. Effects are emitted, never performed.
import { assign, emit, setup } from 'xstate';
import type { WalletChain } from './wallets.ts';

export type AccountEffect =
  | { type: 'publish'; event_type: 'account.created' | 'account.deactivated' | 'account.export_initiated' | 'account.key_exported' }
  | { type: 'publish_wallet'; chain: WalletChain };

export type AccountEvent =
  | { type: 'WALLET_CREATED'; chain: WalletChain }
  | { type: 'DEACTIVATE' }
  | { type: 'EXPORT'; export_source: 'integrator' | 'user_email' }
  | { type: 'SETTLEMENTS_RESOLVED' };

export interface AccountContext {
  wallets_ready: WalletChain[];
  export_source: 'integrator' | 'user_email' | null;
  /** Profile setting, fixed at creation: may a deactivated account start an export? */
  deactivated_allows_export: boolean;
}

// Wallet derivation is independent of the account's status: the same self-transition in every live state.
const walletCreated = { WALLET_CREATED: { guard: 'walletNotReady', actions: ['recordWallet', 'emitWallet'] } } as const;

export const accountMachine = setup({
  types: {
    context: {} as AccountContext,
    events: {} as AccountEvent,
    input: {} as { deactivated_allows_export: boolean },
    emitted: {} as AccountEffect,
  },
  guards: {
    walletNotReady: ({ context, event }) => event.type === 'WALLET_CREATED' && !context.wallets_ready.includes(event.chain),
    exportFromDeactivatedAllowed: ({ context }) => context.deactivated_allows_export,
  },
  actions: {
    recordWallet: assign({
      wallets_ready: ({ context, event }) =>
        event.type === 'WALLET_CREATED' ? [...context.wallets_ready, event.chain] : context.wallets_ready,
    }),
    emitWallet: emit(({ event }) => ({ type: 'publish_wallet' as const, chain: (event as { chain: WalletChain }).chain })),
    recordExportSource: assign({ export_source: ({ event }) => (event.type === 'EXPORT' ? event.export_source : null) }),
  },
}).createMachine({
  id: 'account',
  initial: 'active',
  context: ({ input }) => ({ wallets_ready: [], export_source: null, deactivated_allows_export: input.deactivated_allows_export }),
  entry: emit({ type: 'publish', event_type: 'account.created' }),
  states: {
    active: {
      on: {
        ...walletCreated,
        DEACTIVATE: { target: 'deactivated', actions: emit({ type: 'publish', event_type: 'account.deactivated' }) },
        EXPORT: {
          target: 'export_initiated',
          actions: ['recordExportSource', emit({ type: 'publish', event_type: 'account.export_initiated' })],
        },
      },
    },
    deactivated: {
      on: {
        ...walletCreated,
        EXPORT: {
          guard: 'exportFromDeactivatedAllowed',
          target: 'export_initiated',
          actions: ['recordExportSource', emit({ type: 'publish', event_type: 'account.export_initiated' })],
        },
      },
    },
    export_initiated: {
      on: {
        ...walletCreated,
        SETTLEMENTS_RESOLVED: { target: 'exported', actions: emit({ type: 'publish', event_type: 'account.key_exported' }) },
      },
    },
    exported: { type: 'final' },
  },
});

export type AccountStatus = 'active' | 'deactivated' | 'export_initiated' | 'exported';
