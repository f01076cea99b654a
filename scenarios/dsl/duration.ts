// Durations for scenario scripts: '250ms', '30s', '5m', '72h', '2d', compounds like '1h30m', or a number of ms.
const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Parses a duration to ms; throws on anything else (a typo in a scenario must not mean "0"). */
export function parseDuration(d: string | number): number {
  if (typeof d === 'number') {
    if (!Number.isInteger(d) || d < 0) throw new Error(`duration must be a non-negative integer of ms, got ${d}`);
    return d;
  }
  const text = d.trim();
  if (/^[0-9]+$/.test(text)) return Number(text);
  const parts = [...text.matchAll(/([0-9]+(?:\.[0-9]+)?)(ms|s|m|h|d)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join('') !== text)
    throw new Error(`bad duration '${d}': use e.g. 250ms, 30s, 5m, 72h, 1h30m`);
  return Math.round(parts.reduce((sum, p) => sum + Number(p[1]) * UNIT_MS[p[2]], 0));
}

/** 90_061_001 → '1d 01:01:01.001'; for timelines (sim time since the scenario began). */
export function formatOffset(ms: number): string {
  const sign = ms < 0 ? '-' : '+';
  let rest = Math.abs(ms);
  const days = Math.floor(rest / UNIT_MS.d);
  rest -= days * UNIT_MS.d;
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  const h = Math.floor(rest / UNIT_MS.h);
  const m = Math.floor((rest % UNIT_MS.h) / UNIT_MS.m);
  const s = Math.floor((rest % UNIT_MS.m) / 1000);
  return `${sign}${days > 0 ? `${days}d ` : ''}${pad(h)}:${pad(m)}:${pad(s)}.${pad(rest % 1000, 3)}`;
}
