// The simulated market maker / solver network: which pairs it quotes (org asset policy, USD markets, per-
// pair liquidity), what it pays (USD prices less a drawn spread, then the platform and integrator fees out
// of the output), the route a quote takes, and how long solvers take to answer. BigInt throughout.
import { defineStore, type Organization, type World } from '../../world.ts';
import { ApiError } from '../../contract/errors.ts';
import { pow10 } from '../../contract/amounts.ts';
import { requireAsset, type Asset } from '../assets/index.ts';
import { formatUsd, parseUsd, USD_PRICE_SCALE, usdPriceScaled } from '../markets/index.ts';
import { bpsUnits, forward, formatBps, leastInputFor, WHOLE_BPS_UNITS, type FeeRates, type Rate } from './arithmetic.ts';

export type Side = 'exact_in' | 'exact_out';
type RouteType = 'INTENTS_ONLY' | 'HYBRID_SOLANA_TO_INTENTS' | 'LOCAL_CHAIN_SWAP';

export interface PriceRequest {
  org: Organization;
  from: Asset;
  to: Asset;
  side: Side;
  /** exact_in: the input; exact_out: the net output wanted. */
  amount_atoms: bigint;
  /** Overrides the organization's integrator fee for this request (decimal string). */
  integrator_fee_bps?: string;
  spread_bps: number;
}

export interface Fees {
  platform_bps: string;
  integrator_bps: string;
  total_bps: string;
  platform_atoms: bigint;
  integrator_atoms: bigint;
  total_atoms: bigint;
}

export interface Priced {
  amount_in_atoms: bigint;
  /** Net of every fee. */
  expected_out_atoms: bigint;
  gross_out_atoms: bigint;
  fees: Fees;
  /** USD value of the input, 1e-12 USD. */
  notional_usd_scaled: bigint;
  from_price_usd_scaled: bigint;
  to_price_usd_scaled: bigint;
  route_type: RouteType;
  /** Read-only: routes without requirements share frozen constants (readers copy them). */
  settlement_domains: readonly string[];
  route_requirements: Readonly<Record<string, unknown>>;
}

/** Notional bounds of one trade or zap (spec: Limits, 1 to 100000 USD equivalent). */
const MIN_NOTIONAL_USD_SCALED = 1n * USD_PRICE_SCALE;
const MAX_NOTIONAL_USD_SCALED = 100_000n * USD_PRICE_SCALE;

/** The Solana leg of a hybrid route ends in Solana USDC before the intents leg takes over. */
const SOLANA_USDC = 'spl.solana:EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const USDC_DECIMALS = 6;

const pricingStore = defineStore('pricing', (world) => ({
  spreads: world.sim.rng.fork('spreads'),
  solvers: world.sim.rng.fork('solvers'),
  /** `from|to` → most notional (1e-12 USD) the market makers fill on that pair; absent = the profile default. */
  liquidity: new Map<string, bigint>(),
  /** The profile's default pair liquidity, parsed, with the text it was parsed from. */
  defaultLiquidity: null as { text: string; scaled: bigint } | null,
}));

const pairKey = (from_asset_key: string, to_asset_key: string): string => `${from_asset_key}|${to_asset_key}`;

/**
 * A spread within the profile bounds from the `spreads` stream. With `substream` the draw comes from a
 * child stream named by it and the main stream does not move: a request that is then refused leaves
 * every later draw where it was.
 */
export function drawSpreadBps(world: World, substream?: string): number {
  const { min, max } = world.profile.spread_bps;
  const rng = pricingStore(world).spreads;
  return (substream === undefined ? rng : rng.fork(substream)).int(min, max);
}

/** A solver latency within the profile bounds from the `solvers` stream (`substream` as for drawSpreadBps). */
export function drawSolverLatencyMs(world: World, substream?: string): number {
  const { min, max } = world.profile.solver_latency_ms;
  const rng = pricingStore(world).solvers;
  return (substream === undefined ? rng : rng.fork(substream)).int(min, max);
}

/** The pair's liquidity in 1e-12 USD: its override, else the profile default. */
function pairLiquidityScaled(world: World, from_asset_key: string, to_asset_key: string): bigint {
  const store = pricingStore(world);
  // Most worlds set no override: skip building and hashing the pair key then.
  const override = store.liquidity.size === 0 ? undefined : store.liquidity.get(pairKey(from_asset_key, to_asset_key));
  if (override !== undefined) return override;
  const text = world.profile.pair_liquidity_usd;
  // The profile can change between calls (control plane): the parse is cached against its text.
  if (store.defaultLiquidity?.text !== text) store.defaultLiquidity = { text, scaled: parseUsd(text, 'pair_liquidity_usd') };
  return store.defaultLiquidity.scaled;
}

function priceOf(world: World, asset: Asset, param: string): bigint {
  const p = usdPriceScaled(world, asset.asset_key);
  if (p === null) throw new ApiError('unsupported_pair', `no market maker quotes ${asset.asset_key}: it has no USD market`, { param });
  return p;
}

function refuseForbidden(org: Organization, asset: Asset, param: string): void {
  if (org.forbidden_assets.length > 0 && org.forbidden_assets.includes(asset.asset_key)) {
    throw new ApiError('forbidden_asset', `${asset.asset_key} is not permitted for this organization`, { param });
  }
}

/**
 * Whether the pair can be quoted at all: the org's asset policy (403 forbidden_asset), distinct assets with
 * USD markets (400 unsupported_pair), and a pair whose liquidity has not been set to zero.
 */
export function checkPairAllowed(world: World, org: Organization, from: Asset, to: Asset): void {
  refuseForbidden(org, from, 'from_asset_key');
  refuseForbidden(org, to, 'to_asset_key');
  if (from.asset_key === to.asset_key) throw new ApiError('unsupported_pair', 'from and to name the same asset', { param: 'to_asset_key' });
  priceOf(world, from, 'from_asset_key');
  priceOf(world, to, 'to_asset_key');
  if (pairLiquidityScaled(world, from.asset_key, to.asset_key) === 0n) {
    throw new ApiError('insufficient_liquidity', `no market maker fills ${from.asset_key} → ${to.asset_key} at any size`, {
      param: 'to_asset_key',
    });
  }
}

/** Platform fee from the org; integrator fee from the request when given, else the org's; their total capped by the profile. */
function feeRates(world: World, org: Organization, integrator_fee_bps: string | undefined): FeeRates {
  const rates = {
    platform_units: bpsUnits(org.platform_fee_bps),
    integrator_units: bpsUnits(integrator_fee_bps ?? org.integrator_fee_bps),
  };
  const max = BigInt(world.profile.max_total_fee_bps) * (WHOLE_BPS_UNITS / 10_000n);
  if (rates.platform_units + rates.integrator_units > max) {
    throw new ApiError('invalid_parameter', `platform and integrator fees together exceed ${world.profile.max_total_fee_bps} bps`, {
      param: 'integrator_fee_bps',
      details: { platform_bps: formatBps(rates.platform_units), integrator_bps: formatBps(rates.integrator_units) },
    });
  }
  return rates;
}

function feesObject(rates: FeeRates, f: { platform_atoms: bigint; integrator_atoms: bigint; total_atoms: bigint }): Fees {
  return {
    platform_bps: formatBps(rates.platform_units),
    integrator_bps: formatBps(rates.integrator_units),
    total_bps: formatBps(rates.platform_units + rates.integrator_units),
    platform_atoms: f.platform_atoms,
    integrator_atoms: f.integrator_atoms,
    total_atoms: f.total_atoms,
  };
}

function rateOf(world: World, from: Asset, to: Asset, spread_bps: number): Rate {
  return {
    from_price_usd_scaled: priceOf(world, from, 'from_asset_key'),
    to_price_usd_scaled: priceOf(world, to, 'to_asset_key'),
    from_decimals: from.decimals,
    to_decimals: to.decimals,
    spread_bps,
  };
}

/**
 * The output of a known input at current prices, with no size checks: what zaps pay on an observed
 * deposit and what trades re-price at fill time. Throws unsupported_pair when a price is missing.
 */
export function forwardOut(
  world: World,
  input: { org: Organization; from: Asset; to: Asset; amount_in_atoms: bigint; integrator_fee_bps?: string; spread_bps: number },
): { gross_out_atoms: bigint; fees: Fees; expected_out_atoms: bigint } {
  const rates = feeRates(world, input.org, input.integrator_fee_bps);
  const f = forward(input.amount_in_atoms, rateOf(world, input.from, input.to, input.spread_bps), rates);
  return { gross_out_atoms: f.gross_out_atoms, fees: feesObject(rates, f), expected_out_atoms: f.expected_out_atoms };
}

function sizeError(world: World, message: string, param: string): ApiError {
  return new ApiError(world.profile.size_out_of_bounds_error, message, { param });
}

// Every quote keeps its route: the common ones share these frozen values.
const NO_ROUTE_REQUIREMENTS: Readonly<Record<string, unknown>> = Object.freeze({});
const INTENTS_DOMAINS: readonly string[] = Object.freeze(['intents']);
const HYBRID_DOMAINS: readonly string[] = Object.freeze(['solana', 'intents']);

/** The route a pair takes: one chain → local swap; out of Solana → Solana leg to USDC, then intents; else intents. */
function routeOf(
  world: World,
  from: Asset,
  to: Asset,
  notional_usd_scaled: bigint,
): Pick<Priced, 'route_type' | 'settlement_domains' | 'route_requirements'> {
  if (from.chain === to.chain)
    return { route_type: 'LOCAL_CHAIN_SWAP', settlement_domains: [from.chain], route_requirements: NO_ROUTE_REQUIREMENTS };
  if (from.chain !== 'solana')
    return { route_type: 'INTENTS_ONLY', settlement_domains: INTENTS_DOMAINS, route_requirements: NO_ROUTE_REQUIREMENTS };
  const usdc_price = usdPriceScaled(world, SOLANA_USDC) ?? USD_PRICE_SCALE;
  const haircut = BigInt(world.profile.hybrid_intermediate_haircut_bps);
  const min_out_atoms = (notional_usd_scaled * pow10(USDC_DECIMALS) * (10_000n - haircut)) / (usdc_price * 10_000n);
  return {
    route_type: 'HYBRID_SOLANA_TO_INTENTS',
    settlement_domains: HYBRID_DOMAINS,
    route_requirements: { min_intermediate_out: { asset_key: SOLANA_USDC, min_out_atoms: min_out_atoms.toString() } },
  };
}

/**
 * Prices one request at current market prices. exact_in pays the forward net of the input; exact_out
 * finds the least input whose net reaches the amount asked (so expected_out_atoms ≥ it). Errors:
 * forbidden_asset, unsupported_pair, invalid_parameter (zero amount, fees too high), and
 * insufficient_liquidity (or the profile's choice) outside 1..100000 USD or above the pair's liquidity.
 */
export function price(world: World, req: PriceRequest): Priced {
  const amountParam = req.side === 'exact_in' ? 'amount_in_atoms' : 'amount_out_atoms';
  if (req.amount_atoms <= 0n) throw new ApiError('invalid_parameter', `${amountParam} must be greater than zero`, { param: amountParam });
  checkPairAllowed(world, req.org, req.from, req.to);
  const rates = feeRates(world, req.org, req.integrator_fee_bps);
  const rate = rateOf(world, req.from, req.to, req.spread_bps);
  let amount_in_atoms = req.amount_atoms;
  if (req.side === 'exact_out') {
    const least = leastInputFor(req.amount_atoms, rate, rates);
    if (least === null) throw new ApiError('insufficient_liquidity', 'no input reaches that output after fees', { param: amountParam });
    amount_in_atoms = least;
  }
  const notional_usd_scaled = (amount_in_atoms * rate.from_price_usd_scaled) / pow10(req.from.decimals);
  if (notional_usd_scaled < MIN_NOTIONAL_USD_SCALED) {
    throw sizeError(world, `the trade is worth ${formatUsd(notional_usd_scaled)} USD; the minimum is 1 USD`, amountParam);
  }
  if (notional_usd_scaled > MAX_NOTIONAL_USD_SCALED) {
    throw sizeError(world, `the trade is worth ${formatUsd(notional_usd_scaled)} USD; the maximum is 100000 USD`, amountParam);
  }
  const liquidity = pairLiquidityScaled(world, req.from.asset_key, req.to.asset_key);
  if (notional_usd_scaled > liquidity) {
    throw new ApiError(
      'insufficient_liquidity',
      `market makers fill ${req.from.asset_key} → ${req.to.asset_key} up to ${formatUsd(liquidity)} USD`,
      {
        param: amountParam,
        details: { max_notional_usd: formatUsd(liquidity) },
      },
    );
  }
  const f = forward(amount_in_atoms, rate, rates);
  if (f.expected_out_atoms <= 0n)
    throw new ApiError('insufficient_liquidity', 'the output rounds to nothing after fees', { param: amountParam });
  const route = routeOf(world, req.from, req.to, notional_usd_scaled);
  return {
    amount_in_atoms,
    expected_out_atoms: f.expected_out_atoms,
    gross_out_atoms: f.gross_out_atoms,
    fees: feesObject(rates, f),
    notional_usd_scaled,
    from_price_usd_scaled: rate.from_price_usd_scaled,
    to_price_usd_scaled: rate.to_price_usd_scaled,
    route_type: route.route_type,
    settlement_domains: route.settlement_domains,
    route_requirements: route.route_requirements,
  };
}

export function serializeFees(f: Fees): Record<string, string> {
  return {
    platform_bps: f.platform_bps,
    integrator_bps: f.integrator_bps,
    total_bps: f.total_bps,
    platform_atoms: f.platform_atoms.toString(),
    integrator_atoms: f.integrator_atoms.toString(),
    total_atoms: f.total_atoms.toString(),
  };
}

// ---- liquidity control -----------------------------------------------------------------------------

export interface LiquidityInput {
  from_asset_key: string;
  to_asset_key: string;
  /** USD decimal; "0" closes the pair; null goes back to the profile default. */
  max_notional_usd: string | null;
}

/** Sets per-pair liquidity, all or nothing: every entry is checked before any is applied. */
export function setLiquidity(world: World, pairs: readonly LiquidityInput[]): void {
  const parsed = pairs.map((p, i) => {
    const from = requireAsset(p.from_asset_key, `pairs.${i}.from_asset_key`);
    const to = requireAsset(p.to_asset_key, `pairs.${i}.to_asset_key`);
    if (from.asset_key === to.asset_key)
      throw new ApiError('unsupported_pair', `pairs.${i} names the same asset twice`, { param: `pairs.${i}.to_asset_key` });
    const param = `pairs.${i}.max_notional_usd`;
    const cap = p.max_notional_usd === null ? null : p.max_notional_usd === '0' ? 0n : parseUsd(p.max_notional_usd, param);
    return { key: pairKey(from.asset_key, to.asset_key), cap };
  });
  const { liquidity } = pricingStore(world);
  for (const { key, cap } of parsed) {
    if (cap === null) liquidity.delete(key);
    else liquidity.set(key, cap);
  }
}

export function serializeLiquidity(world: World): Record<string, unknown> {
  const pairs = [...pricingStore(world).liquidity.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([key, cap]) => {
      const [from_asset_key, to_asset_key] = key.split('|');
      return { from_asset_key, to_asset_key, max_notional_usd: formatUsd(cap) };
    });
  return { default_max_notional_usd: world.profile.pair_liquidity_usd, pairs };
}
