// Scheduler task labels declared once per resource: every (kind, step) label made at load, flat and
// interned, so a task scheduled on the hot path names a constant. A label composed per task was a rope
// that the scheduler compared, and counted in its report, by content at every task it ran.

/** An interned flat copy of `s` (a property key is internalized: one sequential string per content). */
const intern = (s: string): string => Object.keys({ [s]: 0 })[0];

/** `labels[kind][step]` = `${kind}.${step}`, for every kind and step given. */
export function taskLabels<K extends string, S extends string>(
  kinds: readonly K[],
  steps: readonly S[],
): Readonly<Record<K, Readonly<Record<S, string>>>> {
  const out = {} as Record<K, Record<S, string>>;
  for (const kind of kinds) {
    const byStep = {} as Record<S, string>;
    for (const step of steps) byStep[step] = intern(`${kind}.${step}`);
    out[kind] = Object.freeze(byStep);
  }
  return Object.freeze(out);
}
