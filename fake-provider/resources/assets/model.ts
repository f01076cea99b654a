// Asset identity operations: the catalog listing, chain-native resolution, the per-organization symbol
// table (bulk upsert, list, delete) and the resolution every resource uses when a request names an asset
// by `asset_key` or by `symbol` (exactly one of the two).
import { defineStore, type Organization, type World } from '../../world.ts';
import { ApiError } from '../../contract/errors.ts';
import { paginate, type Page } from '../../contract/pagination.ts';
import type { Violation } from '../../resource.ts';
import {
  ASSET_SEQ,
  ASSETS,
  assetByKey,
  CHAIN_PATTERN,
  erc20Asset,
  isCanonicalAssetKey,
  nativeAssetOfChain,
  splAsset,
  type Asset,
} from './catalog.ts';

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

function orgSymbols(world: World, org_id: string): OrgSymbols {
  const all = symbolStore(world);
  let s = all.get(org_id);
  if (!s) {
    s = { bySymbol: new Map(), byAssetKey: new Map() };
    all.set(org_id, s);
  }
  return s;
}

const SYMBOL_PATTERN = /^[A-Za-z0-9](?:[A-Za-z0-9._:-]{0,30}[A-Za-z0-9])$/;

/** Validates an asset key and finds it in the catalog. */
export function requireAsset(asset_key: string, param = 'asset_key'): Asset {
  if (!isCanonicalAssetKey(asset_key))
    throw new ApiError('invalid_asset_key', `${param} does not match the canonical asset_key grammar`, { param });
  const asset = assetByKey(asset_key);
  if (!asset) throw new ApiError('asset_not_supported', `${asset_key} is not a supported asset`, { param });
  return asset;
}

function lookupSymbol(world: World, org_id: string, symbol: string, param = 'symbol'): Asset {
  if (!SYMBOL_PATTERN.test(symbol))
    throw new ApiError('invalid_symbol', `${param} violates the symbol format (2-32 chars, A-Za-z0-9._:-, alphanumeric at both ends)`, {
      param,
    });
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
export function resolveAssetRef(
  world: World,
  org_id: string,
  ref: { asset_key?: string; symbol?: string },
  opts: { prefix?: string; required: false },
): Asset | undefined;
export function resolveAssetRef(
  world: World,
  org_id: string,
  ref: { asset_key?: string; symbol?: string },
  opts: { prefix?: string; required: boolean },
): Asset | undefined {
  const p = opts.prefix ?? '';
  if (ref.asset_key !== undefined && ref.symbol !== undefined) {
    throw new ApiError('invalid_parameter', `give only one of ${p}asset_key and ${p}symbol`, { param: `${p}symbol` });
  }
  if (ref.asset_key !== undefined) return requireAsset(ref.asset_key, `${p}asset_key`);
  if (ref.symbol !== undefined) return lookupSymbol(world, org_id, ref.symbol, `${p}symbol`);
  if (opts.required) throw new ApiError('parameter_missing', `one of ${p}asset_key or ${p}symbol is required`, { param: `${p}asset_key` });
  return undefined;
}

// ---- catalog listing -------------------------------------------------------------------------------

export interface AssetQuery {
  q?: string;
  asset_key?: string;
  symbol?: string;
  verified?: boolean;
  chain?: string;
  limit?: number;
  cursor?: string;
}

/**
 * Filters are exact: a well-formed `asset_key`, `symbol` or `chain` that names nothing gives an empty
 * list, not an error (malformed ones give their format error).
 */
export function listAssets(world: World, org_id: string, query: AssetQuery): Page<Asset> {
  if (query.asset_key !== undefined && query.symbol !== undefined) {
    throw new ApiError('invalid_parameter', 'give only one of asset_key and symbol', { param: 'symbol' });
  }
  if (query.asset_key !== undefined && !isCanonicalAssetKey(query.asset_key)) {
    throw new ApiError('invalid_asset_key', 'asset_key does not match the canonical asset_key grammar', { param: 'asset_key' });
  }
  if (query.symbol !== undefined && !SYMBOL_PATTERN.test(query.symbol)) throw invalidSymbol('symbol');
  if (query.chain !== undefined && !CHAIN_PATTERN.test(query.chain)) {
    throw new ApiError('invalid_parameter', 'chain must be a chain in asset_key form: evm:<chain_id>, btc, solana or zec', {
      param: 'chain',
    });
  }
  const exact =
    query.symbol !== undefined ? (orgSymbols(world, org_id).bySymbol.get(query.symbol.toLowerCase())?.asset_key ?? '') : query.asset_key;
  const needle = query.q?.toLowerCase();
  const items = ASSETS.filter(
    (a) =>
      (exact === undefined || a.asset_key === exact) &&
      (query.verified === undefined || a.verified === query.verified) &&
      (query.chain === undefined || a.chain === query.chain) &&
      (needle === undefined || [a.display_symbol, a.name, a.asset_key].some((f) => f.toLowerCase().includes(needle))),
  );
  return paginate(items, (a) => ASSET_SEQ.get(a.asset_key)!, { limit: query.limit, cursor: query.cursor });
}

export function serializeAsset(a: Asset): Record<string, unknown> {
  return { asset_key: a.asset_key, display_symbol: a.display_symbol, name: a.name, decimals: a.decimals, verified: a.verified };
}

// ---- chain-native resolution -----------------------------------------------------------------------

type ResolveKind = 'erc20' | 'spl' | 'native';

export interface ResolveQuery {
  kind: ResolveKind;
  chain_id?: string;
  address?: string;
  mint?: string;
  chain?: string;
}

const RESOLVE_PARAMS: Record<ResolveKind, (keyof ResolveQuery)[]> = {
  erc20: ['chain_id', 'address'],
  spl: ['mint'],
  native: ['chain'],
};

/** Chain-native identity → catalog asset. A parameter of another kind is refused, so typos surface. */
export function resolveChainAsset(world: World, query: ResolveQuery): Asset {
  if (query.kind === 'native' && !world.profile.resolve_native_kind) {
    throw new ApiError('invalid_enum', 'kind must be one of: erc20, spl', { param: 'kind' });
  }
  const own = RESOLVE_PARAMS[query.kind];
  for (const p of ['chain_id', 'address', 'mint', 'chain'] as const) {
    if (query[p] === undefined && own.includes(p))
      throw new ApiError('parameter_missing', `${p} is required for kind=${query.kind}`, { param: p });
    if (query[p] !== undefined && !own.includes(p))
      throw new ApiError('invalid_parameter', `${p} is not a parameter of kind=${query.kind}`, { param: p });
  }
  let found: Asset | undefined;
  let what: string;
  if (query.kind === 'erc20') {
    if (!/^[1-9][0-9]{0,9}$/.test(query.chain_id!))
      throw new ApiError('invalid_parameter', 'chain_id must be a positive integer', { param: 'chain_id' });
    if (!/^0x[0-9a-fA-F]{40}$/.test(query.address!))
      throw new ApiError('invalid_parameter', 'address must be 0x followed by 40 hex digits', { param: 'address' });
    found = erc20Asset(query.chain_id!, query.address!);
    what = `erc20 ${query.address} on evm:${query.chain_id}`;
  } else if (query.kind === 'spl') {
    if (!/^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(query.mint!))
      throw new ApiError('invalid_parameter', 'mint must be a base58 Solana address', { param: 'mint' });
    found = splAsset(query.mint!);
    what = `spl mint ${query.mint}`;
  } else {
    if (!CHAIN_PATTERN.test(query.chain!))
      throw new ApiError('invalid_parameter', 'chain must be evm:<chain_id>, btc, solana or zec', { param: 'chain' });
    found = nativeAssetOfChain(query.chain!);
    what = `the native asset of ${query.chain}`;
  }
  if (!found) throw new ApiError('asset_not_supported', `${what} is not a supported asset`);
  return found;
}

export function serializeResolved(a: Asset): Record<string, unknown> {
  return { asset_key: a.asset_key, decimals: a.decimals, verified: a.verified };
}

// ---- symbols ---------------------------------------------------------------------------------------

const invalidSymbol = (param: string): ApiError =>
  new ApiError('invalid_symbol', `${param} violates the symbol format (2-32 chars, A-Za-z0-9._:-, alphanumeric at both ends)`, { param });

export interface SymbolMapping {
  symbol: string;
  asset_key: string;
}

export interface UpsertCounts {
  created: number;
  updated: number;
  unchanged: number;
}

const conflict = (side: 'symbol' | 'asset_key', index: number, message: string, details: Record<string, unknown>): ApiError =>
  new ApiError('symbol_conflict', message, { param: `symbols.${index}.${side}`, details: { conflict: side, index, ...details } });

/** Per mapping, in order: symbol format, asset_key grammar, asset support. The first failure wins. */
function checkMappings(mappings: readonly SymbolMapping[]): void {
  mappings.forEach((m, i) => {
    if (!SYMBOL_PATTERN.test(m.symbol)) throw invalidSymbol(`symbols.${i}.symbol`);
    requireAsset(m.asset_key, `symbols.${i}.asset_key`);
  });
}

/** The bijection, inside the batch and against what is stored. Exact duplicates in a batch are one mapping. */
function checkBijection(table: OrgSymbols, mappings: readonly SymbolMapping[]): void {
  const bySymbol = new Map<string, { m: SymbolMapping; i: number }>();
  const byAsset = new Map<string, { m: SymbolMapping; i: number }>();
  mappings.forEach((m, i) => {
    const lower = m.symbol.toLowerCase();
    const sameSymbol = bySymbol.get(lower);
    if (sameSymbol && (sameSymbol.m.symbol !== m.symbol || sameSymbol.m.asset_key !== m.asset_key)) {
      throw conflict(
        'symbol',
        i,
        `symbol side: ${m.symbol} also appears as ${sameSymbol.m.symbol} → ${sameSymbol.m.asset_key} at symbols.${sameSymbol.i}; a symbol maps to one asset_key with one casing`,
        {
          symbol: m.symbol,
          other_index: sameSymbol.i,
        },
      );
    }
    const sameAsset = byAsset.get(m.asset_key);
    if (sameAsset && sameAsset.m.symbol.toLowerCase() !== lower) {
      throw conflict(
        'asset_key',
        i,
        `asset_key side: ${m.asset_key} is also given symbol ${sameAsset.m.symbol} at symbols.${sameAsset.i}; an asset_key has at most one symbol`,
        {
          asset_key: m.asset_key,
          other_index: sameAsset.i,
        },
      );
    }
    bySymbol.set(lower, { m, i });
    byAsset.set(m.asset_key, { m, i });
  });
  mappings.forEach((m, i) => {
    const stored = table.bySymbol.get(m.symbol.toLowerCase());
    if (stored && stored.asset_key !== m.asset_key) {
      throw conflict(
        'symbol',
        i,
        `symbol side: ${stored.symbol} is already mapped to ${stored.asset_key}; delete it before mapping it to another asset_key`,
        {
          symbol: stored.symbol,
          existing_asset_key: stored.asset_key,
        },
      );
    }
    const holder = table.byAssetKey.get(m.asset_key);
    if (holder && holder.symbol.toLowerCase() !== m.symbol.toLowerCase()) {
      throw conflict(
        'asset_key',
        i,
        `asset_key side: ${m.asset_key} already has symbol ${holder.symbol}; an asset_key has at most one symbol`,
        {
          asset_key: m.asset_key,
          existing_symbol: holder.symbol,
        },
      );
    }
  });
}

/** Validates the whole batch, then applies it: any bad mapping leaves the table untouched. */
export function upsertSymbols(world: World, org_id: string, mappings: readonly SymbolMapping[]): UpsertCounts {
  const max = world.profile.symbols_batch_max;
  if (mappings.length > max)
    throw new ApiError('invalid_parameter', `symbols carries ${mappings.length} mappings; at most ${max} per request`, {
      param: 'symbols',
    });
  checkMappings(mappings);
  const table = orgSymbols(world, org_id);
  checkBijection(table, mappings);
  const counts: UpsertCounts = { created: 0, updated: 0, unchanged: 0 };
  const seen = new Set<string>();
  for (const m of mappings) {
    if (seen.has(m.symbol)) continue;
    seen.add(m.symbol);
    const stored = table.bySymbol.get(m.symbol.toLowerCase());
    if (!stored) {
      const rec: SymbolRecord = { symbol: m.symbol, asset_key: m.asset_key, created_at_ms: world.sim.now_ms(), seq: world.nextSeq() };
      table.bySymbol.set(m.symbol.toLowerCase(), rec);
      table.byAssetKey.set(m.asset_key, rec);
      counts.created++;
    } else if (stored.symbol !== m.symbol) {
      stored.symbol = m.symbol;
      counts.updated++;
    } else {
      counts.unchanged++;
    }
  }
  return counts;
}

export function listSymbols(world: World, org_id: string, query: { q?: string; limit?: number; cursor?: string }): Page<SymbolRecord> {
  const needle = query.q?.toLowerCase();
  const items = [...orgSymbols(world, org_id).bySymbol.values()]
    .filter((r) => needle === undefined || r.symbol.toLowerCase().includes(needle))
    .sort((a, b) => a.seq - b.seq);
  return paginate(items, (r) => r.seq, { limit: query.limit, cursor: query.cursor });
}

export function deleteSymbol(world: World, org_id: string, symbol: string): SymbolRecord {
  if (!SYMBOL_PATTERN.test(symbol)) throw invalidSymbol('symbol');
  const table = orgSymbols(world, org_id);
  const rec = table.bySymbol.get(symbol.toLowerCase());
  if (!rec) throw new ApiError('symbol_not_found', `symbol ${symbol} is not registered for this organization`, { param: 'symbol' });
  table.bySymbol.delete(symbol.toLowerCase());
  table.byAssetKey.delete(rec.asset_key);
  return rec;
}

export function serializeSymbol(r: SymbolRecord): Record<string, unknown> {
  return { symbol: r.symbol, asset_key: r.asset_key, created_at_ms: r.created_at_ms };
}

/** Each organization's symbol table is a bijection onto supported assets, and its two indexes agree. */
export function symbolInvariants(world: World): Violation[] {
  const out: Violation[] = [];
  for (const [org_id, table] of symbolStore(world)) {
    if (table.bySymbol.size !== table.byAssetKey.size) {
      out.push({
        invariant: 'symbols_bijective',
        entity_id: org_id,
        message: `${table.bySymbol.size} symbols but ${table.byAssetKey.size} asset keys`,
      });
    }
    for (const [lower, rec] of table.bySymbol) {
      if (lower !== rec.symbol.toLowerCase() || table.byAssetKey.get(rec.asset_key) !== rec) {
        out.push({
          invariant: 'symbols_bijective',
          entity_id: org_id,
          message: `symbol ${rec.symbol} and asset ${rec.asset_key} disagree between indexes`,
        });
      }
      if (!SYMBOL_PATTERN.test(rec.symbol) || !assetByKey(rec.asset_key)) {
        out.push({
          invariant: 'symbols_valid',
          entity_id: org_id,
          message: `symbol ${rec.symbol} → ${rec.asset_key} is not a valid mapping`,
        });
      }
    }
  }
  return out;
}

/** A deleted organization: its asset symbols go. */
export function forgetOrganizationSymbols(world: World, org: Organization): void {
  symbolStore(world).delete(org.organization_id);
}
