// Comparing a replayed answer with the recorded one (status, recorded headers, body bytes), and describing
// the first difference in one short line that never prints a secret (OTPs, keys, webhook secrets, bundles).
import type { CapturedResponse } from './lines.ts';

const SECRET_NAME = /secret|otp|private|bundle|api_key|token|authorization|password/i;
const SNIPPET_CHARS = 80;

const clip = (s: string): string => (s.length > SNIPPET_CHARS ? `${s.slice(0, SNIPPET_CHARS)}…` : s);

/** A value as printed in a diff: secrets (judged by the field's name) are never shown. */
function shown(name: string, value: unknown): string {
  if (value === undefined) return '(absent)';
  if (SECRET_NAME.test(name)) return '[redacted]';
  return clip(JSON.stringify(value));
}

/** Redacts secret query parameters (`otp_code=…`) of a request URL. */
export function redactUrl(url: string): string {
  return url.replace(/([?&])([^=&]*)=([^&]*)/g, (pair, sep: string, name: string) =>
    SECRET_NAME.test(name) ? `${sep}${name}=[redacted]` : pair,
  );
}

/** Redacts `"secret_field":"…"` pairs inside raw JSON text. */
function redactText(text: string): string {
  return text.replace(/"([A-Za-z0-9_-]*)"\s*:\s*"((?:[^"\\]|\\.)*)"/g, (pair, name: string) =>
    SECRET_NAME.test(name) ? `"${name}":"[redacted]"` : pair,
  );
}

function firstDifference(x: unknown, y: unknown, path: string): string | null {
  const name = path.slice(path.lastIndexOf('.') + 1);
  const kind = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);
  if (kind(x) !== kind(y)) return `${path}: expected ${shown(name, x)}, got ${shown(name, y)}`;
  if (Array.isArray(x) && Array.isArray(y)) {
    if (x.length !== y.length) return `${path}: expected ${x.length} items, got ${y.length}`;
    for (let i = 0; i < x.length; i++) {
      const d = firstDifference(x[i], y[i], `${path}[${i}]`);
      if (d) return d;
    }
    return null;
  }
  if (x !== null && typeof x === 'object') {
    const a = x as Record<string, unknown>;
    const b = y as Record<string, unknown>;
    for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
      const d =
        key in a && key in b
          ? firstDifference(a[key], b[key], `${path}.${key}`)
          : `${path}.${key}: expected ${shown(key, a[key])}, got ${shown(key, b[key])}`;
      if (d) return d;
    }
    return null;
  }
  return x === y ? null : `${path}: expected ${shown(name, x)}, got ${shown(name, y)}`;
}

function bodyDifference(expected: string, got: string): string {
  try {
    const d = firstDifference(JSON.parse(expected), JSON.parse(got), 'body');
    if (d) return d;
  } catch {
    // not JSON: compare bytes
  }
  let i = 0;
  while (i < expected.length && expected[i] === got[i]) i++;
  const around = (s: string): string => redactText(clip(s.slice(Math.max(0, i - 20), i + 40)));
  return `body bytes differ at offset ${i}: expected …${around(expected)}…, got …${around(got)}…`;
}

/** The first difference between the recorded and the replayed answer, or null when they match. */
export function responseDifference(expected: CapturedResponse, got: CapturedResponse | null): string | null {
  if (!got) return 'no answer in the replay (the request is still in flight)';
  const what = (r: CapturedResponse): string => (r.reset ? 'a reset connection' : `status ${r.status}`);
  if (Boolean(expected.reset) !== Boolean(got.reset) || expected.status !== got.status)
    return `expected ${what(expected)}, got ${what(got)}`;
  if (expected.body !== got.body) return bodyDifference(expected.body, got.body);
  for (const name of new Set([...Object.keys(expected.headers), ...Object.keys(got.headers)])) {
    if (expected.headers[name] !== got.headers[name])
      return `header ${name}: expected ${shown(name, expected.headers[name])}, got ${shown(name, got.headers[name])}`;
  }
  return null;
}
