// The webhook delivery lifecycle: pending → in_flight → succeeded | pending (retry) | exhausted.
// Retry times and the window are absolute sim timestamps in context; the model schedules each attempt.
import { assign, emit, setup } from 'xstate';

/** Effects the model applies after a transition: schedule the next attempt at `due_ms`. */
export type DeliveryEffect = { type: 'schedule'; due_ms: number };

export type DeliveryEvent =
  /** A fault (delay_ms, reorder) moves the attempt later without counting it. */
  | { type: 'POSTPONE'; due_ms: number }
  | { type: 'ATTEMPT'; at_ms: number }
  | { type: 'SUCCEEDED'; http_status: number }
  /** Non-2xx, timeout, network error or a dropped attempt (http_status 0 when nothing answered). */
  | { type: 'FAILED'; http_status: number; at_ms: number }
  /** The webhook was inactive when the attempt fell due (profile `webhook_inactive_abandons`). */
  | { type: 'ABANDON' };

export interface DeliveryContext {
  attempts: number;
  /** When the next attempt is due (meaningful while pending). */
  due_ms: number;
  first_attempt_at_ms: number | null;
  attempted_at_ms: number | null;
  http_status: number;
  retry_schedule_ms: readonly number[];
  retry_window_ms: number;
}

export interface DeliveryInput {
  due_ms: number;
  retry_schedule_ms: readonly number[];
  retry_window_ms: number;
}

/** The retry due after `attempts` failed attempts, the last failing at `at_ms`; the schedule's last value repeats. */
export function nextRetryAt(ctx: DeliveryContext, at_ms: number): number {
  const schedule = ctx.retry_schedule_ms;
  const delay_ms = schedule[Math.min(ctx.attempts, schedule.length) - 1] ?? 0;
  return at_ms + delay_ms;
}

/** Retries stop once the next one would fall after the window, measured from the first attempt. */
export function retryAllowed(ctx: DeliveryContext, at_ms: number): boolean {
  return ctx.first_attempt_at_ms !== null && nextRetryAt(ctx, at_ms) <= ctx.first_attempt_at_ms + ctx.retry_window_ms;
}

export const deliveryMachine = setup({
  types: {
    context: {} as DeliveryContext,
    events: {} as DeliveryEvent,
    input: {} as DeliveryInput,
    emitted: {} as DeliveryEffect,
  },
  guards: {
    retryWithinWindow: ({ context, event }) => event.type === 'FAILED' && retryAllowed(context, event.at_ms),
  },
  actions: {
    recordAttempt: assign(({ context, event }) => {
      const at_ms = (event as { at_ms: number }).at_ms;
      return { attempts: context.attempts + 1, attempted_at_ms: at_ms, first_attempt_at_ms: context.first_attempt_at_ms ?? at_ms };
    }),
    recordStatus: assign({ http_status: ({ event }) => (event as { http_status: number }).http_status }),
    planRetry: assign({ due_ms: ({ context, event }) => nextRetryAt(context, (event as { at_ms: number }).at_ms) }),
    planPostpone: assign({ due_ms: ({ event }) => (event as { due_ms: number }).due_ms }),
    emitSchedule: emit(({ context }) => ({ type: 'schedule' as const, due_ms: context.due_ms })),
  },
}).createMachine({
  id: 'webhook_delivery',
  initial: 'pending',
  context: ({ input }) => ({
    attempts: 0,
    due_ms: input.due_ms,
    first_attempt_at_ms: null,
    attempted_at_ms: null,
    http_status: 0,
    retry_schedule_ms: input.retry_schedule_ms,
    retry_window_ms: input.retry_window_ms,
  }),
  entry: 'emitSchedule',
  states: {
    pending: {
      on: {
        POSTPONE: { actions: ['planPostpone', 'emitSchedule'] },
        ATTEMPT: { target: 'in_flight', actions: 'recordAttempt' },
        ABANDON: { target: 'exhausted' },
      },
    },
    in_flight: {
      on: {
        SUCCEEDED: { target: 'succeeded', actions: 'recordStatus' },
        FAILED: [
          { guard: 'retryWithinWindow', target: 'pending', actions: ['recordStatus', 'planRetry', 'emitSchedule'] },
          { target: 'exhausted', actions: 'recordStatus' },
        ],
      },
    },
    succeeded: { type: 'final' },
    exhausted: { type: 'final' },
  },
});

export type DeliveryState = 'pending' | 'in_flight' | 'succeeded' | 'exhausted';
/** The spec's three delivery statuses: in-flight counts as pending; exhausted (or abandoned) is failed. */
export type DeliveryStatus = 'pending' | 'success' | 'failed';

export const STATUS_OF_STATE: Record<DeliveryState, DeliveryStatus> = {
  pending: 'pending',
  in_flight: 'pending',
  succeeded: 'success',
  exhausted: 'failed',
};
