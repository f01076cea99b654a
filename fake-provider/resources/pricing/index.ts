// The pricing resource: the simulated market maker other resources price with (RFQ quotes, zaps, trade
// fills), and the /_sim liquidity control. It serves no /v1 route of its own.
import type { ResourceModule } from '../../resource.ts';
import { pricingControlRoutes } from './routes.ts';

export {
  checkPairAllowed,
  drawSolverLatencyMs,
  drawSpreadBps,
  forwardOut,
  price,
  serializeFees,
  type Fees,
  type Priced,
  type Side,
} from './model.ts';
export { bpsUnits, WHOLE_BPS_UNITS } from './arithmetic.ts';

export const pricingResource = {
  name: 'pricing',
  control: pricingControlRoutes,
} satisfies ResourceModule;
