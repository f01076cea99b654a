// The events resource: the event feed and account activity over the shared event store, and the
// event-type pattern grammar other resources (webhook replay) validate with.
import type { ResourceModule } from '../../resource.ts';
import { eventRoutes } from './routes.ts';

export { serializeEvent } from './model.ts';
export { typePattern, eventEnvelope } from './schemas.ts';

export const eventsResource = {
  name: 'events',
  routes: eventRoutes,
} satisfies ResourceModule;
