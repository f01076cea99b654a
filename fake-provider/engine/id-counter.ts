// The counter inside a world id `<prefix>_<12 hex><counter in base 36>` (world.ts `newId` draws them in
// increasing counter order): read back by the by-id indexes and the transition log to binary-search.

/** Hex characters between `<prefix>_` and the counter (6 random bytes). */
export const ID_HEX_CHARS = 12;

/** Base-36 digits the counter is padded to (more once it outgrows them). */
export const ID_COUNTER_DIGITS = 4;

const U32_LIMIT = 2 ** 32;

/** The base-36 counter from offset `from` to the end of `id`, or -1 (none there, not base 36, beyond 32 bits). */
export function counterAt(id: string, from: number): number {
  if (from <= 0 || id.length <= from) return -1;
  let counter = 0;
  for (let i = from; i < id.length; i++) {
    const c = id.charCodeAt(i);
    const digit = c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 122 ? c - 87 : -1;
    if (digit < 0) return -1;
    counter = counter * 36 + digit;
    if (counter >= U32_LIMIT) return -1;
  }
  return counter;
}

/** The counter of a world id of any prefix (prefixes hold no `_`), or -1. */
export const idCounter = (id: string): number => {
  const at = id.indexOf('_');
  return at < 0 ? -1 : counterAt(id, at + 1 + ID_HEX_CHARS);
};
