// Every observer of the serving pipeline, registered in this one place (http/pipeline.ts calls them by role,
// never by name): client conduct per API key, and the oracle's witness of idempotent answers.
import type { RequestObserver } from './http/pipeline.ts';
import { conductObserver } from './conduct/observer.ts';
import { noteIdempotentWrite, witnessIdempotentAnswer } from './oracle/idempotency-ledger.ts';

export const OBSERVERS: readonly RequestObserver[] = [
  conductObserver,
  // The witness sits apart from the idempotency store it checks: it sees the answers, not the store.
  { idempotentWrite: noteIdempotentWrite, idempotentAnswer: witnessIdempotentAnswer },
];
