// Seeded randomness for the whole simulation: one seed, forked into named streams so that a new
// consumer never shifts another consumer's draws (TigerBeetle-style). sfc32 core, seeded by SHA-256.
import { hash } from 'node:crypto';

export interface Rng {
  /** The stream's name path, e.g. `root/ids`. */
  readonly name: string;
  /** Uniform float in [0, 1). */
  next(): number;
  /** Uniform integer in [min, max] (inclusive). */
  int(min: number, max: number): number;
  /** True with probability p. */
  chance(p: number): boolean;
  pick<T>(items: readonly T[]): T;
  bytes(n: number): Uint8Array;
  hex(n_bytes: number): string;
  /** A child stream whose draws depend only on (seed, path): independent of the parent's position. */
  fork(name: string): Rng;
}

const U32 = 4294967296;
/** Two hex digits per byte value: hex strings are joined once (flat), never grown into ropes. */
const BYTE_HEX = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, '0'));

/**
 * One stream. A class rather than a closure bag: a fork per trade (fills, settlements) then costs one
 * small object and no per-method closures. The state words are the sfc32 state; the first four words of
 * SHA-256(`seed/name`) seed it (node's one-shot hash: the same digest, a fraction of a JS SHA-256's cost).
 */
class Sfc32 implements Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(
    private readonly seed_text: string,
    readonly name: string,
  ) {
    const h = hash('sha256', `${seed_text}/${name}`, 'buffer');
    this.a = h.readUInt32BE(0);
    this.b = h.readUInt32BE(4);
    this.c = h.readUInt32BE(8);
    this.d = h.readUInt32BE(12);
    for (let i = 0; i < 12; i++) this.u32(); // warm up away from the seed's structure
  }

  private u32(): number {
    const a = this.a >>> 0;
    const b = this.b >>> 0;
    const c = this.c >>> 0;
    const d = this.d >>> 0;
    const t = (a + b) | 0;
    const d2 = (d + 1) | 0;
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

  bytes(n: number): Uint8Array {
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i += 4) {
      const w = this.u32();
      for (let j = 0; j < 4 && i + j < n; j++) out[i + j] = (w >>> (8 * j)) & 0xff;
    }
    return out;
  }

  hex(n_bytes: number): string {
    const bytes = this.bytes(n_bytes);
    const parts: string[] = new Array(n_bytes);
    for (let i = 0; i < n_bytes; i++) parts[i] = BYTE_HEX[bytes[i]];
    return parts.join('');
  }

  fork(child: string): Rng {
    return new Sfc32(this.seed_text, `${this.name}/${child}`);
  }
}

export function createRng(seed: string | number, name = 'root'): Rng {
  return new Sfc32(String(seed), name);
}
