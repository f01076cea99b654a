// Asset identity operations: the per-organization symbol table and the resolution every resource uses
// when a request names an asset by `asset_key` or by `symbol` (exactly one of the two).
import { defineStore, type World } from '../../world.ts';
import { ApiError } from '../../http/errors.ts';
import { assetByKey, isCanonicalAssetKey, type Asset } from './catalog.ts';

export interface SymbolRecord {
  symbol: string;
  asset_key: string;
  created_at_ms: number;
  seq: number;
}

export interface OrgSymbols {
  /** Lowercased symbol → record (lookup is case-insensitive, storage keeps the case). */
  bySymbol: Map<string, SymbolRecord>;
  byAssetKey: Map<string, SymbolRecord>;
}

export const symbolStore = defineStore('symbols', () => new Map<string, OrgSymbols>());

export function orgSymbols(world: World, org_id: string): OrgSymbols {
  const all = symbolStore(world);
  let s = all.get(org_id);
  if (!s) {
    s = { bySymbol: new Map(), byAssetKey: new Map() };
    all.set(org_id, s);
  }
  return s;
}

export const SYMBOL_PATTERN = /^[A-Za-z0-9](?:[A-Za-z0-9._:-]{0,30}[A-Za-z0-9])$/;

/** Validates an asset key and finds it in the catalog. */
export function requireAsset(asset_key: string, param = 'asset_key'): Asset {
  if (!isCanonicalAssetKey(asset_key)) throw new ApiError('invalid_asset_key', `${param} does not match the canonical asset_key grammar`, { param });
  const asset = assetByKey(asset_key);
  if (!asset) throw new ApiError('asset_not_supported', `${asset_key} is not a supported asset`, { param });
  return asset;
}

export function lookupSymbol(world: World, org_id: string, symbol: string, param = 'symbol'): Asset {
  if (!SYMBOL_PATTERN.test(symbol)) throw new ApiError('invalid_symbol', `${param} violates the symbol format (2-32 chars, A-Za-z0-9._:-, alphanumeric at both ends)`, { param });
  const rec = orgSymbols(world, org_id).bySymbol.get(symbol.toLowerCase());
  if (!rec) throw new ApiError('symbol_not_found', `symbol ${symbol} is not registered for this organization`, { param });
  return requireAsset(rec.asset_key, param);
}

/**
 * Resolves the one-of pair `<prefix>asset_key` / `<prefix>symbol` of a request. Both given →
 * invalid_parameter; neither → parameter_missing when required.
 */
export function resolveAssetRef(
  world: World,
  org_id: string,
  ref: { asset_key?: string; symbol?: string },
  opts: { prefix?: string; required: true },
): Asset;
export function resolveAssetRef(world: World, org_id: string, ref: { asset_key?: string; symbol?: string }, opts: { prefix?: string; required: false }): Asset | undefined;
export function resolveAssetRef(world: World, org_id: string, ref: { asset_key?: string; symbol?: string }, opts: { prefix?: string; required: boolean }): Asset | undefined {
  const p = opts.prefix ?? '';
  if (ref.asset_key !== undefined && ref.symbol !== undefined) {
    throw new ApiError('invalid_parameter', `give only one of ${p}asset_key and ${p}symbol`, { param: `${p}symbol` });
  }
  if (ref.asset_key !== undefined) return requireAsset(ref.asset_key, `${p}asset_key`);
  if (ref.symbol !== undefined) return lookupSymbol(world, org_id, ref.symbol, `${p}symbol`);
  if (opts.required) throw new ApiError('parameter_missing', `one of ${p}asset_key or ${p}symbol is required`, { param: `${p}asset_key` });
  return undefined;
}
