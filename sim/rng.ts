// Seeded randomness for the whole simulation: one seed, forked into named streams so that a new
// consumer never shifts another consumer's draws (TigerBeetle-style). sfc32 core, seeded by SHA-256.
import { hash, randomBytes } from 'node:crypto';

export interface Rng {
  /** The stream's name path, e.g. `root/ids`. */
  readonly name: string;
  /** The next raw 32-bit draw, as an unsigned integer (`bytes` and `hex` take four bytes from each, least significant first). */
  u32(): number;
  /** Uniform float in [0, 1). */
  next(): number;
  /** Uniform integer in [min, max] (inclusive). */
  int(min: number, max: number): number;
  /** True with probability p. */
  chance(p: number): boolean;
  pick<T>(items: readonly T[]): T;
  bytes(n: number): Uint8Array;
  /** `n_bytes` drawn bytes as lowercase hex (two digits each), between `prefix` (e.g. `0x`) and `suffix`, in one flat string. */
  hex(n_bytes: number, prefix?: string, suffix?: string): string;
  /** A child stream whose draws depend only on (seed, path): independent of the parent's position. */
  fork(name: string): Rng;
}

const U32 = 4294967296;

/** SHA-256 round constants (FIPS 180-4 §4.2.2). */
const K = Int32Array.from([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be,
  0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa,
  0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85,
  0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3,
  0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f,
  0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);
const IV = Int32Array.from([0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]);

/** Byte value b → its two lowercase hex digits as char codes, at 2b and 2b + 1. */
const HEX_CODES = Uint8Array.from({ length: 512 }, (_, i) =>
  (i >> 1)
    .toString(16)
    .padStart(2, '0')
    .charCodeAt(i & 1),
);

/**
 * What every stream of one seed shares: the seed, and scratch space for seeding (a SHA-256 of the
 * message `seed/name`) and for hex strings. Streams run one call at a time, so one scratch serves all;
 * it lives in the root stream's object, not in the module (module state would be shared across worlds).
 */
class Seeding {
  readonly seed_text: string;
  /** The padded message, whole 64-byte blocks; grows for long names. */
  msg = new Uint8Array(128);
  readonly w = new Int32Array(64);
  readonly h = new Int32Array(8);
  /** Hex text is written here as latin1 bytes and read out as one flat string. */
  text = Buffer.alloc(128);

  constructor(seed_text: string) {
    this.seed_text = seed_text;
  }

  /**
   * Leaves SHA-256(`seed/parent/child`) (`seed/child` when parent is null) in `h`, word by word as
   * big-endian u32: the digest node's crypto gives, computed here without a Buffer per call. Names
   * are short (one or two blocks), where the one-shot native call costs more than the rounds.
   */
  digest(parent: string | null, child: string): void {
    const seed = this.seed_text;
    const n = seed.length + 1 + (parent === null ? 0 : parent.length + 1) + child.length;
    const total = (((n + 8) >>> 6) + 1) << 6;
    if (this.msg.length < total) this.msg = new Uint8Array(total);
    const msg = this.msg;
    let at = writeAscii(msg, 0, seed);
    if (at >= 0) msg[at++] = 0x2f; // '/'
    if (at >= 0 && parent !== null) {
      at = writeAscii(msg, at, parent);
      if (at >= 0) msg[at++] = 0x2f;
    }
    if (at >= 0) at = writeAscii(msg, at, child);
    if (at < 0) {
      // Not ASCII: the UTF-8 bytes differ from the char codes, so the native hash takes it (rare: names are ours).
      const text = parent === null ? `${seed}/${child}` : `${seed}/${parent}/${child}`;
      const d = hash('sha256', text, 'buffer');
      for (let i = 0; i < 8; i++) this.h[i] = d.readInt32BE(4 * i);
      return;
    }
    msg[n] = 0x80;
    msg.fill(0, n + 1, total);
    // Bit length, big-endian, in the last 8 bytes (names stay far below 2^32 bits).
    const bits = n * 8;
    msg[total - 5] = Math.floor(bits / U32);
    msg[total - 4] = bits >>> 24;
    msg[total - 3] = bits >>> 16;
    msg[total - 2] = bits >>> 8;
    msg[total - 1] = bits;
    this.h.set(IV);
    for (let p = 0; p < total; p += 64) this.compress(msg, p);
  }

  /** One SHA-256 block (FIPS 180-4 §6.2.2) at `msg[p..p+64)` into `h`. */
  private compress(msg: Uint8Array, p: number): void {
    const w = this.w;
    const h = this.h;
    for (let i = 0; i < 16; i++) {
      const q = p + 4 * i;
      w[i] = (msg[q] << 24) | (msg[q + 1] << 16) | (msg[q + 2] << 8) | msg[q + 3];
    }
    for (let i = 16; i < 64; i++) {
      const x = w[i - 15];
      const y = w[i - 2];
      const s0 = ((x >>> 7) | (x << 25)) ^ ((x >>> 18) | (x << 14)) ^ (x >>> 3);
      const s1 = ((y >>> 17) | (y << 15)) ^ ((y >>> 19) | (y << 13)) ^ (y >>> 10);
      w[i] = (w[i - 16] + s0 + w[i - 7] + s1) | 0;
    }
    let a = h[0],
      b = h[1],
      c = h[2],
      d = h[3],
      e = h[4],
      f = h[5],
      g = h[6],
      k = h[7];
    for (let i = 0; i < 64; i++) {
      const s1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
      const t1 = (k + s1 + ((e & f) ^ (~e & g)) + K[i] + w[i]) | 0;
      const s0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
      const t2 = (s0 + ((a & b) ^ (c & (a ^ b)))) | 0;
      k = g;
      g = f;
      f = e;
      e = (d + t1) | 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) | 0;
    }
    h[0] += a;
    h[1] += b;
    h[2] += c;
    h[3] += d;
    h[4] += e;
    h[5] += f;
    h[6] += g;
    h[7] += k;
  }

  /** Room for `n` chars of hex text. */
  textOf(n: number): Buffer {
    if (this.text.length < n) this.text = Buffer.alloc(n);
    return this.text;
  }
}

/** Writes `s` at `at` as bytes; the end offset, or -1 when `s` is not all ASCII (its UTF-8 is not its char codes). */
function writeAscii(out: Uint8Array, at: number, s: string): number {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c > 0x7f) return -1;
    out[at++] = c;
  }
  return at;
}

/**
 * One stream. A class rather than a closure bag: a fork per trade (fills, settlements) then costs one
 * small object and no per-method closures. The state words are the sfc32 state; the first four words of
 * SHA-256(`seed/name`) seed it. A fork hashes its parent's name and its own part where they lie rather
 * than the joined name (its `name` stays an unflattened concatenation unless read).
 */
class Sfc32 implements Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(
    private readonly seeding: Seeding,
    readonly name: string,
    parent: string | null,
    child: string,
  ) {
    seeding.digest(parent, child);
    const h = seeding.h;
    let a = h[0];
    let b = h[1];
    let c = h[2];
    let d = h[3];
    // Warm up away from the seed's structure: 12 steps of `u32`, on locals.
    for (let i = 0; i < 12; i++) {
      const t = (a + b) | 0;
      d = (d + 1) | 0;
      const r = (t + d) | 0;
      a = b ^ (b >>> 9);
      b = (c + (c << 3)) | 0;
      c = (((c << 21) | (c >>> 11)) + r) | 0;
    }
    this.a = a;
    this.b = b;
    this.c = c;
    this.d = d;
  }

  u32(): number {
    const a = this.a;
    const b = this.b;
    const c = this.c;
    const t = (a + b) | 0;
    const d2 = (this.d + 1) | 0;
    const r = (t + d2) | 0;
    this.a = b ^ (b >>> 9);
    this.b = (c + (c << 3)) | 0;
    this.c = (((c << 21) | (c >>> 11)) + r) | 0;
    this.d = d2;
    return r >>> 0;
  }

  next(): number {
    return this.u32() / U32;
  }

  int(min: number, max: number): number {
    return min + Math.floor((this.u32() / U32) * (max - min + 1));
  }

  chance(p: number): boolean {
    return this.u32() / U32 < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('rng.pick on an empty list');
    return items[Math.floor((this.u32() / U32) * items.length)];
  }

  /** Each u32 gives four bytes, least significant first; a partial last word drops its high bytes. */
  bytes(n: number): Uint8Array {
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i += 4) {
      const w = this.u32();
      for (let j = 0; j < 4 && i + j < n; j++) out[i + j] = w >>> (8 * j);
    }
    return out;
  }

  /**
   * The same bytes as `bytes(n_bytes)`, written as hex digits into the shared scratch and read out once:
   * a flat string (never a rope), with no byte array, parts array or join per call.
   */
  hex(n_bytes: number, prefix = '', suffix = ''): string {
    const start = prefix.length;
    const end = start + 2 * n_bytes;
    const text = this.seeding.textOf(end + suffix.length);
    // A latin1 byte cannot hold a wider char: such a prefix or suffix is joined instead (nothing is drawn yet).
    if (writeAscii(text, 0, prefix) < 0 || writeAscii(text, end, suffix) < 0) return prefix + this.hex(n_bytes) + suffix;
    for (let i = 0; i < n_bytes; i += 4) {
      const w = this.u32();
      for (let j = 0; j < 4 && i + j < n_bytes; j++) {
        const at = start + 2 * (i + j);
        const b = (w >>> (8 * j)) & 0xff;
        text[at] = HEX_CODES[2 * b];
        text[at + 1] = HEX_CODES[2 * b + 1];
      }
    }
    return text.toString('latin1', 0, end + suffix.length);
  }

  fork(child: string): Rng {
    return new Sfc32(this.seeding, `${this.name}/${child}`, this.name, child);
  }
}

/**
 * A fresh secret seed for a run (256 bits from the OS): what API keys, webhook secrets and OTPs are drawn
 * from when no `--secret-seed` is given, so a known `--seed` never reveals them.
 */
export function randomSecretSeed(): string {
  return randomBytes(32).toString('hex');
}

export function createRng(seed: string | number, name = 'root'): Rng {
  return new Sfc32(new Seeding(String(seed)), name, null, name);
}
