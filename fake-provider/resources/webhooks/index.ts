// The webhooks resource: what other resources may use, its routes, the event listener that creates a
// delivery per published event, and its invariants.
import type { ResourceModule } from '../../resource.ts';
import { webhookInvariants } from './invariants.ts';
import { onEventPublished } from './model.ts';
import { forgetOrganizationWebhooks } from './retention.ts';
import { webhookRoutes } from './routes.ts';

export {
  deliveryStatus,
  webhookStore,
  type Delivery,
} from './model.ts';
export { sweepDeliveries } from './retention.ts';

export const webhooksResource = {
  name: 'webhooks',
  routes: webhookRoutes,
  install(world) {
    world.hooks.eventPublished.push(onEventPublished);
  },
  invariants: webhookInvariants,
  forgetOrganization: forgetOrganizationWebhooks,
} satisfies ResourceModule;
