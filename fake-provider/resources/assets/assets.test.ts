// The asset catalog and chain-native resolution over real HTTP: GET /assets with every filter and cursors,
// GET /resolve for erc20, spl and native, and every error code these endpoints answer.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSim, type TestSim } from '../../testing/harness.ts';
import { DEFAULT_PROFILE } from '../../profile.ts';
import { ASSETS } from './catalog.ts';

let sim: TestSim;
beforeAll(async () => {
  sim = await startTestSim();
});
afterAll(() => sim.close());

const USDC_ETH = 'erc20.evm:1_0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48';
const USDC_SOL = 'spl.solana:EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const keys = (r: { body: { assets: Array<{ asset_key: string }> } }): string[] => r.body.assets.map((a) => a.asset_key);

describe('GET /assets', () => {
  it('lists the whole catalog in catalog order with exactly the spec fields', async () => {
    const r = await sim.api('GET', '/assets?limit=100');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ has_more: false, next_cursor: null });
    expect(keys(r)).toEqual(ASSETS.map((a) => a.asset_key));
    for (const a of r.body.assets) expect(Object.keys(a).sort()).toEqual(['asset_key', 'decimals', 'display_symbol', 'name', 'verified']);
    expect(r.body.assets[0]).toEqual({ asset_key: 'native.evm:1', display_symbol: 'ETH', name: 'Ether', decimals: 18, verified: true });
  });

  it('pages with cursors, every asset once, in the same order', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const r: any = await sim.api('GET', `/assets?limit=4${cursor ? `&cursor=${cursor}` : ''}`);
      expect(r.status).toBe(200);
      expect(r.body.assets.length).toBeLessThanOrEqual(4);
      seen.push(...keys(r));
      cursor = r.body.next_cursor;
      expect(r.body.has_more).toBe(cursor !== null);
    } while (cursor);
    expect(seen).toEqual(ASSETS.map((a) => a.asset_key));
  });

  it('searches q case-insensitively over display_symbol, name and asset_key', async () => {
    expect(keys(await sim.api('GET', '/assets?q=usdc'))).toEqual([
      USDC_ETH,
      'erc20.evm:42161_0xaf88d065e77c8cc2239327c5edb3a432268e5831',
      USDC_SOL,
    ]);
    expect(keys(await sim.api('GET', '/assets?q=ZCASH'))).toEqual(['native.zec']);
    expect(keys(await sim.api('GET', '/assets?q=0XA0B869'))).toEqual([USDC_ETH]);
    expect(keys(await sim.api('GET', '/assets?q=nothing-like-this'))).toEqual([]);
  });

  it('filters by exact asset_key, verified and chain, and combines filters', async () => {
    expect(keys(await sim.api('GET', `/assets?asset_key=${USDC_SOL}`))).toEqual([USDC_SOL]);
    // Well-formed but not in the catalog: an empty list, not an error.
    expect(keys(await sim.api('GET', '/assets?asset_key=native.evm:10'))).toEqual([]);
    expect(keys(await sim.api('GET', '/assets?verified=false'))).toEqual(['spl.solana:DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263']);
    expect(keys(await sim.api('GET', '/assets?verified=true&limit=100'))).toHaveLength(ASSETS.length - 1);
    expect(keys(await sim.api('GET', '/assets?chain=btc'))).toEqual(['native.btc']);
    expect(keys(await sim.api('GET', '/assets?chain=evm:42161&q=usd'))).toEqual([
      'erc20.evm:42161_0xaf88d065e77c8cc2239327c5edb3a432268e5831',
    ]);
    expect(keys(await sim.api('GET', '/assets?chain=solana&verified=true'))).toEqual([
      'native.solana',
      USDC_SOL,
      'spl.solana:Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB',
    ]);
    expect(keys(await sim.api('GET', '/assets?chain=evm:10'))).toEqual([]);
  });

  it('answers every error code of its query', async () => {
    const err = async (q: string) => (await sim.api('GET', `/assets?${q}`)).body.error;
    expect(await err('asset_key=ETH')).toMatchObject({ code: 'invalid_asset_key', param: 'asset_key' });
    expect(await err('asset_key=erc20.evm:1_0xA0B86991C6218B36C1D19D4A2E9EB0CE3606EB48')).toMatchObject({ code: 'invalid_asset_key' });
    expect(await err('verified=yes')).toMatchObject({ code: 'invalid_enum', param: 'verified' });
    expect(await err('chain=ethereum')).toMatchObject({ code: 'invalid_parameter', param: 'chain' });
    expect(await err('limit=0')).toMatchObject({ code: 'invalid_parameter', param: 'limit' });
    expect(await err('cursor=bogus')).toMatchObject({ code: 'invalid_parameter', param: 'cursor' });
    expect(await err('symbol=x')).toMatchObject({ code: 'invalid_symbol', param: 'symbol' });
    expect(await err('symbol=ETH&asset_key=native.evm:1')).toMatchObject({ code: 'invalid_parameter', param: 'symbol' });
    const r = await sim.api('GET', '/assets', { key: null });
    expect(r.status).toBe(401);
  });
});

describe('GET /resolve', () => {
  const resolve = (q: string) => sim.api('GET', `/resolve?${q}`);

  it('resolves an erc20 by chain_id and address in any hex case', async () => {
    for (const address of [
      '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48',
      '0xA0B86991C6218B36C1D19D4A2E9EB0CE3606EB48',
      '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48',
    ]) {
      const r = await resolve(`kind=erc20&chain_id=1&address=${address}`);
      expect(r.status).toBe(200);
      expect(r.body.asset).toEqual({ asset_key: USDC_ETH, decimals: 6, verified: true });
    }
    expect((await resolve('kind=erc20&chain_id=42161&address=0x912CE59144191C1204E64559FE8253a0e49E6548')).body.asset.asset_key).toBe(
      'erc20.evm:42161_0x912ce59144191c1204e64559fe8253a0e49e6548',
    );
  });

  it('resolves an spl mint (case-sensitive) and a native asset by chain', async () => {
    expect((await resolve('kind=spl&mint=DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263')).body.asset).toEqual({
      asset_key: 'spl.solana:DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263',
      decimals: 5,
      verified: false,
    });
    expect((await resolve('kind=spl&mint=dezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263')).body.error.code).toBe('asset_not_supported');
    expect((await resolve('kind=native&chain=btc')).body.asset).toEqual({ asset_key: 'native.btc', decimals: 8, verified: true });
    expect((await resolve('kind=native&chain=evm:42161')).body.asset.asset_key).toBe('native.evm:42161');
  });

  it('answers asset_not_supported for well-formed identities outside the catalog', async () => {
    const r = await resolve('kind=erc20&chain_id=1&address=0x0000000000000000000000000000000000000001');
    expect(r.status).toBe(404);
    expect(r.body.error).toMatchObject({ code: 'asset_not_supported', type: 'invalid_request' });
    expect((await resolve('kind=erc20&chain_id=10&address=0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48')).body.error.code).toBe(
      'asset_not_supported',
    );
    expect((await resolve('kind=spl&mint=11111111111111111111111111111111')).body.error.code).toBe('asset_not_supported');
    expect((await resolve('kind=native&chain=evm:10')).body.error.code).toBe('asset_not_supported');
  });

  it('answers parameter_missing, invalid_enum and invalid_parameter', async () => {
    const err = async (q: string) => {
      const r = await resolve(q);
      expect(r.status).toBe(400);
      return r.body.error;
    };
    expect(await err('chain_id=1')).toMatchObject({ code: 'parameter_missing', param: 'kind' });
    expect(await err('kind=erc20&address=0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48')).toMatchObject({
      code: 'parameter_missing',
      param: 'chain_id',
    });
    expect(await err('kind=erc20&chain_id=1')).toMatchObject({ code: 'parameter_missing', param: 'address' });
    expect(await err('kind=spl')).toMatchObject({ code: 'parameter_missing', param: 'mint' });
    expect(await err('kind=native')).toMatchObject({ code: 'parameter_missing', param: 'chain' });
    expect(await err('kind=bep20&chain_id=56')).toMatchObject({ code: 'invalid_enum', param: 'kind' });
    expect(await err('kind=erc20&chain_id=1&address=0xa0b86991')).toMatchObject({ code: 'invalid_parameter', param: 'address' });
    expect(await err('kind=erc20&chain_id=0&address=0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48')).toMatchObject({
      code: 'invalid_parameter',
      param: 'chain_id',
    });
    expect(await err('kind=erc20&chain_id=eth&address=0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48')).toMatchObject({
      code: 'invalid_parameter',
      param: 'chain_id',
    });
    expect(await err('kind=spl&mint=0OIl')).toMatchObject({ code: 'invalid_parameter', param: 'mint' });
    expect(await err('kind=native&chain=ethereum')).toMatchObject({ code: 'invalid_parameter', param: 'chain' });
    expect(await err('kind=spl&mint=EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v&chain_id=1')).toMatchObject({
      code: 'invalid_parameter',
      param: 'chain_id',
    });
  });

  it('refuses kind=native with invalid_enum when the profile turns the extension off', async () => {
    const strict = await startTestSim({ profile: { ...DEFAULT_PROFILE, resolve_native_kind: false } });
    try {
      const r = await strict.api('GET', '/resolve?kind=native&chain=btc');
      expect(r.status).toBe(400);
      expect(r.body.error).toMatchObject({ code: 'invalid_enum', param: 'kind' });
      expect((await strict.api('GET', '/resolve?kind=spl&mint=EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v')).status).toBe(200);
    } finally {
      await strict.close();
    }
  });
});
