// Execution shared by trades and zaps: the settlement object and the driver that runs fill → settle.
export { beginExecution, pollAfterMs, registerSwapOps, type Swap, type SwapEvent, type SwapOps } from './driver.ts';
export { serializeSettlement, settlementSummary } from './settlement.ts';
