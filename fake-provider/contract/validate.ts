// Turns zod parse failures into the spec's error codes: a missing field is `parameter_missing`, a value
// outside an enum is `invalid_enum`, a refinement may name its own code, anything else `invalid_parameter`.
import { z } from 'zod';
import { ApiError, type ErrorCode } from './errors.ts';

/** Attach to a refinement to choose the error code: `.refine(fn, { params: { api_code: 'invalid_asset_key' } })`. */
interface IssueParams {
  api_code?: ErrorCode;
}

function toApiError(error: z.ZodError, where: 'body' | 'query' | 'path' | 'header'): ApiError {
  const issue = error.issues[0];
  const param = issue.path.length > 0 ? issue.path.map(String).join('.') : undefined;
  const label = param ?? where;
  const custom = (issue as { params?: IssueParams }).params?.api_code;
  if (custom) return new ApiError(custom, issue.message, { param });
  // A missing field is parameter_missing whatever its type (a missing enum value is not an invalid one).
  if ((issue.code === 'invalid_type' || issue.code === 'invalid_value') && (issue as { input?: unknown }).input === undefined) {
    return new ApiError('parameter_missing', `${label} is required`, { param });
  }
  if (issue.code === 'invalid_value') {
    const values = (issue as { values?: unknown[] }).values ?? [];
    return new ApiError('invalid_enum', `${label} must be one of: ${values.map(String).join(', ')}`, { param });
  }
  return new ApiError('invalid_parameter', `${label}: ${issue.message}`, { param });
}

/** Asks zod to keep each issue's input: toApiError tells a missing field from a wrong one by it. */
const REPORT_INPUT = { reportInput: true } as const;

export function parseWith<T extends z.ZodType>(schema: T, input: unknown, where: 'body' | 'query' | 'path' | 'header'): z.output<T> {
  // Parsed without options first: zod copies a params object into a fresh context per parse, and on Node 20
  // that copy alone cost many times the parse (docs/performance.md). Parsing is pure,
  // so only a failure is parsed again, with its inputs kept, to name the error.
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw toApiError(schema.safeParse(input, REPORT_INPUT).error ?? result.error, where);
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The first field of `raw` that parsing dropped (zod objects strip what they do not declare), as a dotted path;
 * null when none. Control-plane bodies are exact (issue 26: a misspelt `where` for `match` was dropped, and the
 * rule fired on every tenant), and one check here covers every /_sim schema, nested objects and arrays included.
 */
export function droppedField(raw: unknown, parsed: unknown, path = ''): string | null {
  if (Array.isArray(raw) && Array.isArray(parsed)) {
    for (let i = 0; i < raw.length && i < parsed.length; i++) {
      const found = droppedField(raw[i], parsed[i], `${path}${i}.`);
      if (found) return found;
    }
    return null;
  }
  // A transform may turn an object into something else: only objects on both sides are compared.
  if (!isPlainObject(raw) || !isPlainObject(parsed)) return null;
  for (const key of Object.keys(raw)) {
    if (!Object.hasOwn(parsed, key)) return `${path}${key}`;
    const found = droppedField(raw[key], parsed[key], `${path}${key}.`);
    if (found) return found;
  }
  return null;
}

// Reusable field schemas, declared once.

/** Integer atoms as decimal text, no sign, no leading zeros beyond "0". */
export const atomsString = z.string().regex(/^(0|[1-9][0-9]{0,77})$/, 'must be a non-negative integer string');
/** UI amount as decimal text (precision against the asset is checked where the asset is known). */
export const uiString = z.string().regex(/^(0|[1-9][0-9]{0,77})(\.[0-9]{1,78})?$/, 'must be a non-negative decimal string');
/** Basis points as decimal text, 0..10000. */
export const bpsString = z
  .string()
  .regex(/^(0|[1-9][0-9]{0,4})(\.[0-9]{1,4})?$/, 'must be a decimal string of basis points')
  .refine((s) => Number(s) <= 10_000, 'must be at most 10000');
export const idString = z.string().min(1).max(128);
export const limitQuery = z
  .string()
  .regex(/^[0-9]{1,4}$/, 'must be an integer from 1 to 100')
  .transform(Number)
  .refine((n) => n >= 1 && n <= 100, 'must be an integer from 1 to 100')
  .optional();
export const msQuery = z
  .string()
  .regex(/^[0-9]{1,15}$/, 'must be an integer (ms since epoch)')
  .transform(Number)
  .optional();
export const cursorQuery = z.string().min(1).max(512).optional();
/** Comma list in a query string, e.g. `types=trade.*,zap.settled`. */
export const commaList = z
  .string()
  .max(2048)
  .transform((s) =>
    s
      .split(',')
      .map((x) => x.trim())
      .filter((x) => x.length > 0),
  );
export const boolQuery = z.enum(['true', 'false']).transform((s) => s === 'true');
