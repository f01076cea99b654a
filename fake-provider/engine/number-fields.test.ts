// shareNumberFields against the plain object: every field reads back the same (same keys, order, values,
// JSON bytes); frozen objects, class instances and small integers are left alone.
import { describe, expect, it } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { shareNumberFields } from './number-fields.ts';

describe('shareNumberFields', () => {
  test.prop([
    fc.dictionary(
      fc.string({ minLength: 1, maxLength: 6 }),
      fc.oneof(fc.double(), fc.integer(), fc.constant(null), fc.string(), fc.boolean()),
    ),
  ])('changes nothing a reader can see', (fields) => {
    const plain = { ...fields };
    const shared = { ...fields };
    shareNumberFields(shared);
    expect(Object.keys(shared)).toEqual(Object.keys(plain));
    for (const key of Object.keys(plain)) expect(Object.is(shared[key], plain[key]), key).toBe(true);
    expect(JSON.stringify(shared)).toBe(JSON.stringify(plain));
  });

  it('leaves frozen objects, read-only fields and class instances alone', () => {
    const frozen = Object.freeze({ at_ms: 1_767_225_600_123 });
    expect(() => shareNumberFields(frozen)).not.toThrow();
    const readOnly = Object.defineProperty({ b: 2.5 }, 'a', { value: 1_767_225_600_123, writable: false, enumerable: true });
    shareNumberFields(readOnly);
    expect(readOnly).toEqual({ b: 2.5, a: 1_767_225_600_123 });
    class C {
      at_ms = 1_767_225_600_123;
    }
    const c = new C();
    shareNumberFields(c);
    expect(c.at_ms).toBe(1_767_225_600_123);
  });
});
