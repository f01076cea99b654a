// Every resource the fake serves, in mount order. Adding a resource means adding it here (its routes' types
// then reach the typed clients through `ResourceModules`).
import type { ResourceModule } from '../resource.ts';
import { replyContract } from '../contract/route.ts';
import { accountsResource } from './accounts/index.ts';
import { screeningResource } from './screening/index.ts';
import { assetsResource } from './assets/index.ts';
import { marketsResource } from './markets/index.ts';
import { creditsResource } from './credits/index.ts';
import { depositsResource } from './deposits/index.ts';
import { eventsResource } from './events/index.ts';
import { webhooksResource } from './webhooks/index.ts';
import { destinationsResource } from './destinations/index.ts';
import { cancelsResource } from './cancels/index.ts';
import { historyResource } from './history/index.ts';
import { pricingResource } from './pricing/index.ts';
import { rfqsResource } from './rfqs/index.ts';
import { zapsResource } from './zaps/index.ts';
import { tradesResource } from './trades/index.ts';
import { exportsResource } from './exports/index.ts';
import { recoveriesResource } from './recoveries/index.ts';

/** The modules as declared: their types keep each route's contract (lib/api-types.ts derives the typed clients). */
const MODULES = [
  accountsResource,
  screeningResource,
  assetsResource,
  marketsResource,
  creditsResource,
  depositsResource,
  eventsResource,
  webhooksResource,
  destinationsResource,
  cancelsResource,
  historyResource,
  pricingResource,
  rfqsResource,
  tradesResource,
  zapsResource,
  exportsResource,
  recoveriesResource,
] as const;

export const RESOURCES: readonly ResourceModule[] = MODULES;

/**
 * The routes' reply contracts (method, path, response schema), typed as declared: lib/api-types.ts derives the
 * typed clients from them. Their type names no engine type, so the package's .d.ts carries none.
 */
export const RESOURCE_ROUTES = collect(MODULES, 'routes').map(replyContract);
export const RESOURCE_CONTROL_ROUTES = collect(MODULES, 'control').map(replyContract);

function collect<T extends readonly ResourceModule[], K extends 'routes' | 'control'>(modules: T, key: K): Array<RoutesIn<T[number], K>> {
  return modules.flatMap((m) => m[key] ?? []) as Array<RoutesIn<T[number], K>>;
}
type RoutesIn<T, K extends 'routes' | 'control'> = T extends { readonly [P in K]: ReadonlyArray<infer R> } ? R : never;
