// Money as BigInt: atoms parse to bigint and print back as decimal strings; UI amounts convert with the
// asset's decimals and never pass through a float.
import { ApiError } from './errors.ts';

/** Powers of ten made once (decimals go up to 18, USD prices 12, bps 4): BigInt exponentiation per quote added up. */
export const POW10: readonly bigint[] = Array.from({ length: 40 }, (_, n) => 10n ** BigInt(n));

/** 10^n as a bigint. */
export const pow10 = (n: number): bigint => POW10[n] ?? 10n ** BigInt(n);

function parseAtoms(text: string, param: string): bigint {
  if (!/^(0|[1-9][0-9]*)$/.test(text)) throw new ApiError('invalid_parameter', `${param} must be a non-negative integer string`, { param });
  return BigInt(text);
}

/** `1.5` with 6 decimals → 1500000n; more fractional digits than `decimals` → ui_precision_exceeded. */
function uiToAtoms(text: string, decimals: number, param: string): bigint {
  const m = /^(0|[1-9][0-9]*)(?:\.([0-9]+))?$/.exec(text);
  if (!m) throw new ApiError('invalid_parameter', `${param} must be a non-negative decimal string`, { param });
  const frac = m[2] ?? '';
  if (frac.length > decimals) {
    throw new ApiError('ui_precision_exceeded', `${param} has ${frac.length} decimals; the asset allows ${decimals}`, { param });
  }
  return BigInt(m[1] + frac.padEnd(decimals, '0'));
}

export function atomsToUi(atoms: bigint, decimals: number): string {
  const neg = atoms < 0n;
  const s = (neg ? -atoms : atoms).toString().padStart(decimals + 1, '0');
  const int = s.slice(0, s.length - decimals);
  const frac = decimals > 0 ? s.slice(s.length - decimals).replace(/0+$/, '') : '';
  return (neg ? '-' : '') + int + (frac ? `.${frac}` : '');
}

/**
 * Resolves a one-of pair such as amount_in_atoms / amount_in_ui: both → invalid_parameter, neither →
 * parameter_missing (when required), else the atoms.
 */
export function oneOfAmount(
  body: Record<string, unknown>,
  atomsField: string,
  uiField: string,
  decimals: number,
  required: boolean,
): bigint | undefined {
  const a = body[atomsField];
  const u = body[uiField];
  if (a !== undefined && u !== undefined) {
    throw new ApiError('invalid_parameter', `give only one of ${atomsField} and ${uiField}`, { param: uiField });
  }
  if (a !== undefined) return parseAtoms(String(a), atomsField);
  if (u !== undefined) return uiToAtoms(String(u), decimals, uiField);
  if (required) throw new ApiError('parameter_missing', `one of ${atomsField} or ${uiField} is required`, { param: atomsField });
  return undefined;
}
