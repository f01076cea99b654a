// The deposit lifecycle (spec: States → Deposit): pending while confirmations, source screening and the
// partner window (when opted in) run side by side; then verified, flagged, or dropped (fault). Flat on
// purpose: the checks are context, so statuses stay plain strings for the invariant checker and /_sim.
import { assign, emit, setup } from 'xstate';

export type FlagReason = 'sanctions_match' | 'high_risk_score' | 'mixer_association' | 'partner_flagged';

export type DepositEffect = { type: 'detected' } | { type: 'verified' } | { type: 'flagged' } | { type: 'dropped' };

export type DepositEvent =
  /** `blocks` more confirmations: 1 per block, or all of them at the finality block (profile `deposit_confirmation_steps`). */
  | { type: 'CONFIRM'; blocks: number }
  | { type: 'SCREENED_CLEAN' }
  | { type: 'SCREENED_FLAG'; flag_reason: Exclude<FlagReason, 'partner_flagged'> }
  | { type: 'PARTNER_WINDOW_CLOSED' }
  | { type: 'PARTNER_FLAG'; flag_category: string; flag_message: string }
  | { type: 'DROP' };

export interface DepositContext {
  required_confirmations: number;
  confirmations: number;
  screened: boolean;
  /** True from landing until the partner window closes, for organizations with partner screening. */
  partner_window_open: boolean;
  flag_reason: FlagReason | null;
  flagged_by: 'routes' | 'partner' | null;
  partner_flag_category: string | null;
  partner_flag_message: string | null;
}

export const depositMachine = setup({
  types: {
    context: {} as DepositContext,
    events: {} as DepositEvent,
    input: {} as { required_confirmations: number; partner_screening: boolean },
    emitted: {} as DepositEffect,
  },
  guards: {
    belowFinality: ({ context }) => context.confirmations < context.required_confirmations,
    confirmCompletes: ({ context, event }) =>
      event.type === 'CONFIRM' &&
      context.confirmations + event.blocks >= context.required_confirmations &&
      context.screened &&
      !context.partner_window_open,
    notScreened: ({ context }) => !context.screened,
    screeningCompletes: ({ context }) =>
      !context.screened && context.confirmations >= context.required_confirmations && !context.partner_window_open,
    partnerWindowOpen: ({ context }) => context.partner_window_open,
    windowCloseCompletes: ({ context }) =>
      context.partner_window_open && context.screened && context.confirmations >= context.required_confirmations,
  },
  actions: {
    countConfirmation: assign({
      confirmations: ({ context, event }) =>
        Math.min(context.required_confirmations, context.confirmations + (event.type === 'CONFIRM' ? event.blocks : 0)),
    }),
    markScreened: assign({ screened: true }),
    closeWindow: assign({ partner_window_open: false }),
    recordRoutesFlag: assign({
      flag_reason: ({ event }) => (event.type === 'SCREENED_FLAG' ? event.flag_reason : null),
      flagged_by: 'routes' as const,
    }),
    recordPartnerFlag: assign({
      flag_reason: 'partner_flagged' as const,
      flagged_by: 'partner' as const,
      partner_window_open: false,
      partner_flag_category: ({ event }) => (event.type === 'PARTNER_FLAG' ? event.flag_category : null),
      partner_flag_message: ({ event }) => (event.type === 'PARTNER_FLAG' ? event.flag_message : null),
    }),
    emitVerified: emit({ type: 'verified' }),
    emitFlagged: emit({ type: 'flagged' }),
    emitDropped: emit({ type: 'dropped' }),
  },
}).createMachine({
  id: 'deposit',
  initial: 'pending',
  context: ({ input }) => ({
    required_confirmations: input.required_confirmations,
    confirmations: 0,
    screened: false,
    partner_window_open: input.partner_screening,
    flag_reason: null,
    flagged_by: null,
    partner_flag_category: null,
    partner_flag_message: null,
  }),
  entry: emit({ type: 'detected' }),
  states: {
    pending: {
      on: {
        CONFIRM: [
          { guard: 'confirmCompletes', target: 'verified', actions: ['countConfirmation', 'emitVerified'] },
          { guard: 'belowFinality', actions: 'countConfirmation' },
        ],
        SCREENED_CLEAN: [
          { guard: 'screeningCompletes', target: 'verified', actions: ['markScreened', 'emitVerified'] },
          { guard: 'notScreened', actions: 'markScreened' },
        ],
        SCREENED_FLAG: { guard: 'notScreened', target: 'flagged', actions: ['recordRoutesFlag', 'emitFlagged'] },
        PARTNER_WINDOW_CLOSED: [
          { guard: 'windowCloseCompletes', target: 'verified', actions: ['closeWindow', 'emitVerified'] },
          { guard: 'partnerWindowOpen', actions: 'closeWindow' },
        ],
        PARTNER_FLAG: { guard: 'partnerWindowOpen', target: 'flagged', actions: ['recordPartnerFlag', 'emitFlagged'] },
        DROP: { guard: 'belowFinality', target: 'dropped', actions: 'emitDropped' },
      },
    },
    verified: { type: 'final' },
    flagged: { type: 'final' },
    dropped: { type: 'final' },
  },
});

export type DepositStatus = 'pending' | 'verified' | 'flagged' | 'dropped';
