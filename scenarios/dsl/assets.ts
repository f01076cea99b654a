// Assets the scenarios trade (canonical asset keys of the catalog) and real-format addresses for them,
// derived from a label so every run of a scenario uses the same addresses.
import { sha256 } from '@noble/hashes/sha2.js';
import { utf8ToBytes } from '@noble/hashes/utils.js';
import { deriveWallet, type WalletChain } from '../../fake-provider/resources/accounts/wallets.ts';
import { assetByKey } from '../../fake-provider/resources/assets/catalog.ts';

/** Arbitrum ETH: 250 ms blocks, 20 confirmations, so a scenario's chain work takes seconds of sim time. */
export const ETH = 'native.evm:42161';
export const USDC = 'erc20.evm:42161_0xaf88d065e77c8cc2239327c5edb3a432268e5831';
export const BTC = 'native.btc';
export const SOL = 'native.solana';

export const ONE_ETH = '1000000000000000000';
export const HALF_ETH = '500000000000000000';
/** 100 USDC (6 decimals). */
export const HUNDRED_USDC = '100000000';

/** A real address on the asset's chain (a valid destination or deposit source), the same for the same label. */
export function addressFor(asset_key: string, label = 'swapsim scenario'): string {
  const asset = assetByKey(asset_key);
  if (!asset) throw new Error(`unknown asset ${asset_key}`);
  return deriveWallet(asset.chain as WalletChain, sha256(utf8ToBytes(`${label}/${asset_key}`))).address;
}
