// The id format module: drawing parts moves the stream as drawing the id does and prints the same id;
// parse and the counter readers take back exactly what format prints, and refuse what it could not.
import { describe, expect, it } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { createSimKernel } from '../../sim/index.ts';
import { counterAfterPrefix, drawId, drawIdParts, exactCounter, formatId, idCounter, parseId } from './ids.ts';

describe('world ids', () => {
  test.prop([
    fc.string({ minLength: 1, maxLength: 8 }),
    fc.integer({ min: 1, max: 2 ** 32 - 1 }),
    fc.constantFrom('evt', 'trd', 'cred', 'quote'),
  ])('drawIdParts draws what drawId draws, formatId prints the same id, parseId reads it back', (seed, counter, prefix) => {
    const a = createSimKernel({ seed }).rng.fork('ids');
    const b = createSimKernel({ seed }).rng.fork('ids');
    const id = drawId(a, prefix, counter);
    const parts = drawIdParts(b, counter);
    expect(formatId(prefix, parts.random, parts.counter)).toBe(id);
    expect(parseId(prefix, id)).toEqual(parts);
    expect(exactCounter(prefix, id)).toBe(counter);
    expect(idCounter(id)).toBe(counter);
    expect(counterAfterPrefix(id, prefix.length + 1)).toBe(counter);
    // The streams stay in step: the next draws agree too.
    expect(a.u32()).toBe(b.u32());
  });

  it('pads the counter to 4 base-36 digits and grows past them', () => {
    expect(formatId('trd', 0xabc, 1)).toBe('trd_000000000abc0001');
    expect(formatId('trd', 2 ** 48 - 1, 36 ** 4)).toBe('trd_ffffffffffff10000');
    expect(idCounter('trd_ffffffffffff10000')).toBe(36 ** 4);
  });

  it('refuses ids format could not print back', () => {
    const good = formatId('evt', 0x123456789a, 42);
    expect(parseId('evt', good)).toEqual({ random: 0x123456789a, counter: 42 });
    for (const bad of [
      'evt_',
      'evt',
      '',
      `trd${good.slice(3)}`,
      `evt-${good.slice(4)}`,
      good.toUpperCase(),
      `${good.slice(0, 16)}012`,
      `${good.slice(0, 16)}00016`,
      `evt_00000000000g${good.slice(16)}`,
      `${good}!`,
      'evt_000000000000zzzzzzzzzz',
    ]) {
      expect(parseId('evt', bad), bad).toBeNull();
    }
    // exactCounter checks the prefix and the counter only (a search on it compares the whole id after).
    expect(exactCounter('evt', `evt_00000000000g${good.slice(16)}`)).toBe(42);
    for (const bad of ['evt_', '', `trd${good.slice(3)}`, `${good.slice(0, 16)}012`, `${good.slice(0, 16)}00016`, `${good}!`]) {
      expect(exactCounter('evt', bad), bad).toBe(-1);
    }
    // The lenient readers take a padded counter (ids are compared whole after the search anyway).
    expect(idCounter(`${good.slice(0, 16)}00016`)).toBe(42);
    expect(idCounter('no-underscore')).toBe(-1);
  });
});
