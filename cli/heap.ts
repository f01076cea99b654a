// How far the `swapsim serve` process's heap may grow past what its last full collection kept
// (`--heap-growth-percent`; docs/shared-server.md, "The server process's heap"). V8 picks that factor itself, up to
// 4 when the heap limit is large (this machine's is 4 GB): a server holding 100-200 MB of live data then swung to
// 800+ MB of RSS between full collections. A fixed factor bounds the heap by the live data instead, at the cost of
// more frequent full collections (mostly concurrent marking).
import { setFlagsFromString } from 'node:v8';

/** The default: the heap grows by at most half of what the last full collection kept before the next one. */
export const HEAP_GROWTH_PERCENT_DEFAULT = 50;

/**
 * Fixes V8's heap growing factor at 1 + percent/100 for this process; 0 leaves V8's own. V8 reads the flag each time
 * it sets the next collection's limit, so it applies from the next full collection (a heap *size* limit, by
 * contrast, is fixed when the process starts: `--max-old-space-size` set at run time changes nothing).
 */
export function boundHeapGrowth(percent: number): void {
  if (!Number.isInteger(percent) || percent < 0 || percent > 1000)
    throw new RangeError(`heap growth percent ${percent}: an integer 0-1000`);
  if (percent > 0) setFlagsFromString(`--heap-growing-percent=${percent}`);
}
