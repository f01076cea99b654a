// The asset catalog: real assets on EVM chain 1, Arbitrum (an EVM L2), Bitcoin, Solana and Zcash with
// their real decimals, contract addresses and mints, and the asset_key grammar for the listed forms.

export type Chain = 'evm:1' | 'evm:42161' | 'btc' | 'solana' | 'zec';

export interface Asset {
  asset_key: string;
  display_symbol: string;
  name: string;
  decimals: number;
  verified: boolean;
  chain: Chain;
  kind: 'native' | 'erc20' | 'spl';
  /** Contract address (erc20, lowercase) or mint (spl); null for native assets. */
  contract: string | null;
  /** Starting USD price, decimal text; null when the asset has no market data. */
  usd_price: string | null;
  /** A USD stablecoin: its price walk moves in smaller steps (see the profile's price_walk). */
  stable?: boolean;
}

const erc20 = (chain_id: number, address: string): string => `erc20.evm:${chain_id}_${address.toLowerCase()}`;

export const ASSETS: readonly Asset[] = [
  {
    asset_key: 'native.evm:1',
    display_symbol: 'ETH',
    name: 'Ether',
    decimals: 18,
    verified: true,
    chain: 'evm:1',
    kind: 'native',
    contract: null,
    usd_price: '3200',
  },
  {
    asset_key: erc20(1, '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48'),
    display_symbol: 'USDC',
    name: 'USD Coin',
    decimals: 6,
    verified: true,
    chain: 'evm:1',
    kind: 'erc20',
    contract: '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48',
    usd_price: '1',
    stable: true,
  },
  {
    asset_key: erc20(1, '0xdAC17F958D2ee523a2206206994597C13D831ec7'),
    display_symbol: 'USDT',
    name: 'Tether USD',
    decimals: 6,
    verified: true,
    chain: 'evm:1',
    kind: 'erc20',
    contract: '0xdac17f958d2ee523a2206206994597c13d831ec7',
    usd_price: '1',
    stable: true,
  },
  {
    asset_key: erc20(1, '0x2260FAC5E5542a773Aa44fBCfeDf7C193bc2C599'),
    display_symbol: 'WBTC',
    name: 'Wrapped BTC',
    decimals: 8,
    verified: true,
    chain: 'evm:1',
    kind: 'erc20',
    contract: '0x2260fac5e5542a773aa44fbcfedf7c193bc2c599',
    usd_price: '95000',
  },
  {
    asset_key: erc20(1, '0x6B175474E89094C44Da98b954EedeAC495271d0F'),
    display_symbol: 'DAI',
    name: 'Dai Stablecoin',
    decimals: 18,
    verified: true,
    chain: 'evm:1',
    kind: 'erc20',
    contract: '0x6b175474e89094c44da98b954eedeac495271d0f',
    usd_price: '1',
    stable: true,
  },
  {
    asset_key: erc20(1, '0x514910771AF9Ca656af840dff83E8264EcF986CA'),
    display_symbol: 'LINK',
    name: 'ChainLink Token',
    decimals: 18,
    verified: true,
    chain: 'evm:1',
    kind: 'erc20',
    contract: '0x514910771af9ca656af840dff83e8264ecf986ca',
    usd_price: '18',
  },
  {
    asset_key: 'native.evm:42161',
    display_symbol: 'ETH',
    name: 'Ether (Arbitrum One)',
    decimals: 18,
    verified: true,
    chain: 'evm:42161',
    kind: 'native',
    contract: null,
    usd_price: '3200',
  },
  {
    asset_key: erc20(42161, '0xaf88d065e77c8cC2239327C5EDb3A432268e5831'),
    display_symbol: 'USDC',
    name: 'USD Coin (Arbitrum One)',
    decimals: 6,
    verified: true,
    chain: 'evm:42161',
    kind: 'erc20',
    contract: '0xaf88d065e77c8cc2239327c5edb3a432268e5831',
    usd_price: '1',
    stable: true,
  },
  {
    asset_key: erc20(42161, '0x912CE59144191C1204E64559FE8253a0e49E6548'),
    display_symbol: 'ARB',
    name: 'Arbitrum',
    decimals: 18,
    verified: true,
    chain: 'evm:42161',
    kind: 'erc20',
    contract: '0x912ce59144191c1204e64559fe8253a0e49e6548',
    usd_price: '0.45',
  },
  {
    asset_key: 'native.btc',
    display_symbol: 'BTC',
    name: 'Bitcoin',
    decimals: 8,
    verified: true,
    chain: 'btc',
    kind: 'native',
    contract: null,
    usd_price: '95000',
  },
  {
    asset_key: 'native.solana',
    display_symbol: 'SOL',
    name: 'Solana',
    decimals: 9,
    verified: true,
    chain: 'solana',
    kind: 'native',
    contract: null,
    usd_price: '180',
  },
  {
    asset_key: 'spl.solana:EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
    display_symbol: 'USDC',
    name: 'USD Coin (Solana)',
    decimals: 6,
    verified: true,
    chain: 'solana',
    kind: 'spl',
    contract: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
    usd_price: '1',
    stable: true,
  },
  {
    asset_key: 'spl.solana:Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB',
    display_symbol: 'USDT',
    name: 'Tether USD (Solana)',
    decimals: 6,
    verified: true,
    chain: 'solana',
    kind: 'spl',
    contract: 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB',
    usd_price: '1',
    stable: true,
  },
  // An unverified asset with no market data: exercises `verified=false` filters and `not_available` candles.
  {
    asset_key: 'spl.solana:DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263',
    display_symbol: 'Bonk',
    name: 'Bonk',
    decimals: 5,
    verified: false,
    chain: 'solana',
    kind: 'spl',
    contract: 'DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263',
    usd_price: null,
  },
  {
    asset_key: 'native.zec',
    display_symbol: 'ZEC',
    name: 'Zcash',
    decimals: 8,
    verified: true,
    chain: 'zec',
    kind: 'native',
    contract: null,
    usd_price: '45',
  },
];

const BY_KEY = new Map(ASSETS.map((a) => [a.asset_key, a]));

export function assetByKey(asset_key: string): Asset | undefined {
  return BY_KEY.get(asset_key);
}

export function nativeAssetOf(chain: Chain): Asset {
  return ASSETS.find((a) => a.chain === chain && a.kind === 'native')!;
}

const BASE58 = '[1-9A-HJ-NP-Za-km-z]{32,44}';
/**
 * The canonical grammar for the forms the spec lists: `native.<chain>` (`native.evm:<chain_id>`,
 * `native.btc`, `native.solana`, `native.zec`), `erc20.evm:<chain_id>_<0x + 40 hex, lowercase>`,
 * `spl.solana:<base58 mint>`. Anything else is `invalid_asset_key`; well-formed but unknown keys are
 * `asset_not_supported`.
 */
const ASSET_KEY_PATTERN = new RegExp(
  `^(native\\.(evm:[1-9][0-9]{0,9}|btc|solana|zec)|erc20\\.evm:[1-9][0-9]{0,9}_0x[0-9a-f]{40}|spl\\.solana:${BASE58})$`,
);

export function isCanonicalAssetKey(text: string): boolean {
  return ASSET_KEY_PATTERN.test(text);
}

/** The chain forms asset keys use: `evm:<chain_id>`, `btc`, `solana`, `zec` (a filter on GET /assets). */
export const CHAIN_PATTERN = /^(evm:[1-9][0-9]{0,9}|btc|solana|zec)$/;

/** Catalog order is the list order of GET /assets: seq = index + 1, stable across worlds. */
export const ASSET_SEQ = new Map(ASSETS.map((a, i) => [a.asset_key, i + 1]));

const BY_CONTRACT = new Map(ASSETS.filter((a) => a.contract !== null).map((a) => [`${a.chain}|${a.contract}`, a]));

/** The erc20 token at `address` (any hex case) on EVM chain `chain_id`. */
export function erc20Asset(chain_id: string, address: string): Asset | undefined {
  return BY_CONTRACT.get(`evm:${chain_id}|${address.toLowerCase()}`);
}

/** The SPL token with this mint (base58, case-sensitive). */
export function splAsset(mint: string): Asset | undefined {
  return BY_CONTRACT.get(`solana|${mint}`);
}

/** The native asset of a chain given in its key form (`evm:1`, `btc`, …), if the catalog has one. */
export function nativeAssetOfChain(chain: string): Asset | undefined {
  return ASSETS.find((a) => a.chain === chain && a.kind === 'native');
}
