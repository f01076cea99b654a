// The markets resource: per-world USD prices on the sim clock (what quotes, zaps and candles price with),
// GET /markets and /markets/candles, and the /_sim price control.
import type { ResourceModule } from '../../resource.ts';
import { marketStore } from './model.ts';
import { marketControlRoutes, marketRoutes } from './routes.ts';

export { usdPrice, usdPriceScaled, setUsdPrice, setUsdPrices } from './model.ts';
export { USD_PRICE_SCALE, formatUsd, parseUsd } from './walk.ts';

export const marketsResource = {
  name: 'markets',
  routes: marketRoutes,
  control: marketControlRoutes,
  // Creating the store here pins every catalog tape's origin to the world's first minute.
  install: (world) => void marketStore(world),
} satisfies ResourceModule;
