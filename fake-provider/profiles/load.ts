// Resolving `--profile <name|file.json>`: the named profiles (`default`, `adversarial`) or a user JSON
// file that overrides any subset of the default (deep merge), validated with errors that name the field.
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { DEFAULT_PROFILE, type Profile } from '../profile.ts';
import { adversarialProfile } from './adversarial.ts';
import { formatIssues, partialProfileSchema, profileSchema, ProfileError, type DeepPartial } from './schema.ts';

const isPlain = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Objects merge key by key; arrays and scalars replace. */
function deepMerge<T>(base: T, over: unknown): T {
  if (!isPlain(base) || !isPlain(over)) return (over === undefined ? base : over) as T;
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(over)) out[k] = deepMerge(out[k], v);
  return out as T;
}

/** Validates a parsed JSON value as a partial profile and merges it over the default. */
export function profileFromJson(json: unknown, fallback_name = 'custom'): Profile {
  const partial = partialProfileSchema.safeParse(json);
  if (!partial.success) {
    const issues = formatIssues(partial.error);
    throw new ProfileError(`invalid profile: ${issues.join('; ')}`, issues);
  }
  const merged = deepMerge<Profile>(structuredClone(DEFAULT_PROFILE), { name: fallback_name, ...(partial.data as DeepPartial<Profile>) });
  const full = profileSchema.safeParse(merged);
  if (!full.success) {
    const issues = formatIssues(full.error);
    throw new ProfileError(`invalid profile: ${issues.join('; ')}`, issues);
  }
  return full.data;
}

/** Reads a profile file; a file without `name` is named `file:<basename>`. */
export function loadProfileFile(path: string): Profile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new ProfileError(`cannot read profile file ${path}: ${(err as Error).message}`, []);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new ProfileError(`profile file ${path} is not valid JSON: ${(err as Error).message}`, []);
  }
  try {
    return profileFromJson(json, `file:${basename(path)}`);
  } catch (err) {
    if (err instanceof ProfileError) throw new ProfileError(`profile file ${path}: ${err.issues.join('; ')}`, err.issues);
    throw err;
  }
}

/** `default`, `adversarial` (drawn from `seed`), or a path to a JSON file. */
export function resolveProfile(spec: string, seed: string | number): Profile {
  if (spec === 'default') return structuredClone(DEFAULT_PROFILE);
  if (spec === 'adversarial') return adversarialProfile(seed);
  return loadProfileFile(spec);
}
