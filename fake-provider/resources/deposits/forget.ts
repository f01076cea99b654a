// A deleted organization's deposits and deposit addresses (DELETE /_sim/organizations/{id}).
import type { Organization, World } from '../../world.ts';
import type { ForgetScope } from '../../resource-records.ts';
import { forgetOrganizationAddresses } from './addresses.ts';
import { forgetOrganizationDepositList } from './model.ts';

export function forgetOrganizationDeposits(world: World, org: Organization, scope: ForgetScope): void {
  forgetOrganizationDepositList(world, org, scope);
  forgetOrganizationAddresses(world, org, scope);
}
