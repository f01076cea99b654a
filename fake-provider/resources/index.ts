// Every resource the fake serves, in mount order. Adding a resource means adding it here.
import type { ResourceModule } from '../resource.ts';
import { accountsResource } from './accounts/index.ts';
import { screeningResource } from './screening/index.ts';

export const RESOURCES: readonly ResourceModule[] = [
  accountsResource,
  screeningResource,
];
