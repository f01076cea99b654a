// Seeded randomness for the whole simulation: one seed, forked into named streams so that a new
// consumer never shifts another consumer's draws (TigerBeetle-style). sfc32 core, seeded by SHA-256.
import { sha256 } from '@noble/hashes/sha2.js';

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

function seedWords(seed: string): [number, number, number, number] {
  const h = sha256(new TextEncoder().encode(seed));
  const v = new DataView(h.buffer, h.byteOffset, h.byteLength);
  return [v.getUint32(0), v.getUint32(4), v.getUint32(8), v.getUint32(12)];
}

export function createRng(seed: string | number, name = 'root'): Rng {
  const seed_text = String(seed);
  let [a, b, c, d] = seedWords(`${seed_text}/${name}`);
  const u32 = (): number => {
    a >>>= 0; b >>>= 0; c >>>= 0; d >>>= 0;
    const t = (a + b) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    d = (d + 1) | 0;
    const r = (t + d) | 0;
    c = (c + r) | 0;
    return r >>> 0;
  };
  for (let i = 0; i < 12; i++) u32(); // warm up away from the seed's structure
  const rng: Rng = {
    name,
    next: () => u32() / 4294967296,
    int: (min, max) => min + Math.floor((u32() / 4294967296) * (max - min + 1)),
    chance: (p) => u32() / 4294967296 < p,
    pick: (items) => {
      if (items.length === 0) throw new Error('rng.pick on an empty list');
      return items[Math.floor((u32() / 4294967296) * items.length)];
    },
    bytes: (n) => {
      const out = new Uint8Array(n);
      for (let i = 0; i < n; i += 4) {
        const w = u32();
        for (let j = 0; j < 4 && i + j < n; j++) out[i + j] = (w >>> (8 * j)) & 0xff;
      }
      return out;
    },
    hex: (n) => Buffer.from(rng.bytes(n)).toString('hex'),
    fork: (child) => createRng(seed_text, `${name}/${child}`),
  };
  return rng;
}
