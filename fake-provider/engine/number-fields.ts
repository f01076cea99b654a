// Sim times in entities without a private box each: the one V8 layout trick the stores apply to the plain
// objects they hold (IdIndex on its first entity), so resources can write plain literals.

/** Numbers V8 keeps unboxed in a tagged field (small integers); anything else is a heap number. */
const isSmallInteger = (v: number): boolean => Number.isInteger(v) && v >= -(2 ** 30) && v < 2 ** 30;

/**
 * An object literal's field whose first value is a number but not a small integer (every sim time: ms since
 * 1970) gets V8's "double" representation, and from then on every object of that shape keeps its own 16-byte
 * box for the field, although the clock hands out one number per instant. Storing null into the field once
 * generalizes it for the whole shape (every object made by the same literal): later entities point at the
 * clock's number instead. Values are put back as they were, so nothing readable changes; a frozen or
 * non-plain object is left alone. About 90 bytes per settled trade (`load/bench/heap.ts`).
 */
export function shareNumberFields(entity: object): void {
  if (Object.isFrozen(entity) || Object.getPrototypeOf(entity) !== Object.prototype) return;
  const fields = entity as Record<string, unknown>;
  for (const key of Object.keys(fields)) {
    const value = fields[key];
    if (typeof value !== 'number' || isSmallInteger(value)) continue;
    const d = Object.getOwnPropertyDescriptor(fields, key);
    if (!d?.writable || !d.configurable) continue;
    fields[key] = null;
    fields[key] = value;
  }
}
