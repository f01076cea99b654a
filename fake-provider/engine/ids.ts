// The world id format, in one place: `<prefix>_<12 hex><counter in base 36, at least 4 digits>`. Drawing
// an id (or its parts) from a seeded stream, printing one from its parts, and reading its parts back (the
// by-id indexes, the event columns and the transition log binary-search on the counter).
import type { Rng } from '../../sim/index.ts';

/** Random bytes in an id: `<prefix>_` is followed by twice as many hex characters, then the counter. */
const ID_RANDOM_BYTES = 6;

/** Hex characters between `<prefix>_` and the counter. */
const ID_HEX_CHARS = 2 * ID_RANDOM_BYTES;

/** Base-36 digits the counter is padded to (more once it outgrows them). */
const ID_COUNTER_DIGITS = 4;

/** An id as two numbers: its random bytes read as one base-16 integer (below 2^48, exact in a double) and its counter. */
export interface IdParts {
  random: number;
  counter: number;
}

const U32_LIMIT = 2 ** 32;

const counterText = (counter: number): string => counter.toString(36).padStart(ID_COUNTER_DIGITS, '0');

/**
 * A fresh id from `rng`: 6 drawn bytes as hex, then `counter`. One flat string from the stream's own
 * scratch: a template literal would leave a rope (ConsString) of parts behind every id the world keeps.
 */
export function drawId(rng: Rng, prefix: string, counter: number): string {
  return rng.hex(ID_RANDOM_BYTES, `${prefix}_`, counterText(counter));
}

/**
 * The parts of the id `drawId(rng, prefix, counter)` would give, drawn the same way (so the stream moves
 * the same): `hex(6)` writes each u32 draw's bytes least significant first, so the first draw gives the
 * high four bytes, byte-reversed, and the second its two low bytes, also reversed.
 */
export function drawIdParts(rng: Rng, counter: number): IdParts {
  const w0 = rng.u32();
  const w1 = rng.u32();
  const high = (((w0 & 0xff) << 24) | (((w0 >>> 8) & 0xff) << 16) | (((w0 >>> 16) & 0xff) << 8) | (w0 >>> 24)) >>> 0;
  const low = ((w1 & 0xff) << 8) | ((w1 >>> 8) & 0xff);
  return { random: high * 65_536 + low, counter };
}

/** The id of `parts`: the same string `drawId` gave for them. */
export function formatId(prefix: string, random: number, counter: number): string {
  return `${prefix}_${random.toString(16).padStart(ID_HEX_CHARS, '0')}${counterText(counter)}`;
}

/** The base-36 counter from offset `from` to the end of `id`, or -1 (none there, not base 36, beyond 32 bits). */
function counterFrom(id: string, from: number): number {
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

/**
 * The counter of `id` whose prefix (with its `_`) is `prefix_length` characters long, or -1. The caller has
 * checked the prefix; the 12 characters after it are not read (the whole id is compared on a match).
 */
export function counterAfterPrefix(id: string, prefix_length: number): number {
  return counterFrom(id, prefix_length + ID_HEX_CHARS);
}

/** The counter of a world id of any prefix (prefixes hold no `_`), or -1. */
export function idCounter(id: string): number {
  const at = id.indexOf('_');
  return at < 0 ? -1 : counterFrom(id, at + 1 + ID_HEX_CHARS);
}

/**
 * The parts of `id` when it is an id of `prefix` that `formatId` prints back exactly (12 lowercase hex,
 * a counter of at least 4 digits with no leading zero beyond them, within 32 bits), else null.
 */
export function parseId(prefix: string, id: string): IdParts | null {
  const counter = exactCounter(prefix, id);
  if (counter < 0) return null;
  let random = 0;
  for (let i = prefix.length + 1; i < prefix.length + 1 + ID_HEX_CHARS; i++) {
    const c = id.charCodeAt(i);
    const digit = c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 102 ? c - 87 : -1;
    if (digit < 0) return null;
    random = random * 16 + digit;
  }
  return { random, counter };
}

/** `parseId`'s counter alone (no object): -1 when `formatId` could not print `id` back. */
export function exactCounter(prefix: string, id: string): number {
  if (!id.startsWith(prefix) || id.charCodeAt(prefix.length) !== 95 /* _ */) return -1;
  const at = prefix.length + 1 + ID_HEX_CHARS;
  const digits = id.length - at;
  if (digits < ID_COUNTER_DIGITS || (digits > ID_COUNTER_DIGITS && id.charCodeAt(at) === 48)) return -1;
  return counterFrom(id, at);
}
