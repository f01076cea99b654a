// Real-format addresses for commands that need one (deposit sources, destinations), derived from real
// keys so every chain's validator accepts them; index n gives a different address.
import { deriveWallet, WALLET_CHAINS, type WalletChain } from '../../../fake-provider/resources/accounts/wallets.ts';

export function sourceAddressFor(chain: string, n: number): string {
  const seed = new Uint8Array(32);
  seed[0] = 0x5a;
  new DataView(seed.buffer).setUint32(28, n);
  const c = (WALLET_CHAINS as readonly string[]).includes(chain) ? (chain as WalletChain) : 'evm:1';
  return deriveWallet(c, seed).address;
}
