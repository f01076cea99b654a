// Execution shared by trades and zaps: the settlement object and the driver that runs fill → settle.
export { beginExecution, failSwap, pollAfterMs, type Swap, type SwapEvent, type SwapKind, type SwapOps } from './driver.ts';
export { serializeSettlement, settlementSummary, finalized, type Settlement, type Leg } from './settlement.ts';
