// The streams' exact draws: pinned values, and every method against a plain reference (node's SHA-256 of
// `seed/name`, sfc32, bytes least significant first) across name lengths around SHA-256's block edges and
// names that are not ASCII. Same seed, same bytes: any drift here shifts every id and hash of a run.
import { hash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createRng, type Rng } from './rng.ts';

/** The straightforward stream the optimised one must match draw for draw. */
function referenceRng(seed: string, name: string) {
  const h = hash('sha256', `${seed}/${name}`, 'buffer');
  let [a, b, c, d] = [0, 4, 8, 12].map((i) => h.readUInt32BE(i));
  const u32 = (): number => {
    const t = (a + b) >>> 0;
    d = (d + 1) >>> 0;
    const r = (t + d) >>> 0;
    a = (b ^ (b >>> 9)) >>> 0;
    b = (c + (c << 3)) >>> 0;
    c = (((c << 21) | (c >>> 11)) + r) >>> 0;
    return r;
  };
  for (let i = 0; i < 12; i++) u32();
  const bytes = (n: number): number[] => {
    const out: number[] = [];
    while (out.length < n) {
      const w = u32();
      for (let j = 0; j < 4 && out.length < n; j++) out.push((w >>> (8 * j)) & 0xff);
    }
    return out;
  };
  return {
    next: () => u32() / 2 ** 32,
    bytes,
    hex: (n: number) =>
      bytes(n)
        .map((x) => x.toString(16).padStart(2, '0'))
        .join(''),
  };
}

const NAMES = ['', 'ids', 'fills/trd_0123456789abc1', 'é/ü', 'x'.repeat(40), 'y'.repeat(41), 'z'.repeat(50), 'w'.repeat(120), '日本'];

describe('rng streams', () => {
  it('keeps its pinned draws', () => {
    const r = createRng(7);
    expect(r.hex(8)).toBe('0bd082667920116a');
    expect(r.fork('ids').hex(8)).toBe('aebb9ce40d7fb978');
    expect(r.fork('deposits').hex(32, '0x')).toBe('0x2760780d532de637432f1c660347001e2120fc51b243b06f11aed6855e8692a2');
    expect(createRng('bench').fork('fills/trd_0123456789ab1').next()).toBe(0.6383395968005061);
  });

  it('draws what the reference draws, for roots and forks of any name length', () => {
    for (const seed of ['7', 'bench', 'sëed', 's'.repeat(60)]) {
      for (const name of NAMES) {
        const cases: Array<[Rng, ReturnType<typeof referenceRng>]> = [
          [createRng(seed, name), referenceRng(seed, name)],
          [createRng(seed).fork(name), referenceRng(seed, `root/${name}`)],
          [createRng(seed).fork('a').fork(name), referenceRng(seed, `root/a/${name}`)],
        ];
        for (const [got, want] of cases) {
          expect(got.next()).toBe(want.next());
          for (const n of [1, 3, 4, 20, 33]) expect(got.hex(n)).toBe(want.hex(n));
          expect(got.hex(32, '0x')).toBe(`0x${want.hex(32)}`);
          expect(got.hex(6, 'evt_', '00a1')).toBe(`evt_${want.hex(6)}00a1`);
          expect(got.hex(3, '', 'é')).toBe(`${want.hex(3)}é`);
          expect(Array.from(got.bytes(7))).toEqual(want.bytes(7));
          expect(got.hex(2, 'ñ')).toBe(`ñ${want.hex(2)}`);
        }
      }
    }
  });

  it('names a fork by its path', () => {
    expect(createRng(1).fork('a').fork('b').name).toBe('root/a/b');
  });
});
