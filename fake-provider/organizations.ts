// Organizations: created through the control plane (keys are issued out of band in the real service),
// holding API keys, fee defaults, recovery and partner-screening switches and rate-limit overrides; deleting
// one frees everything it owns.
import type { Organization, RateLimits, World } from './world.ts';
import { clockState } from '../sim/clock.ts';
import { DEFAULT_RATE_LIMITS } from './http/rate-limits.ts';
import { indexKeys, unindexKeys } from './http/auth.ts';
import type { ForgetScope } from './resource-records.ts';
import { ApiError } from './contract/errors.ts';

export interface OrganizationInput {
  api_keys?: string[];
  platform_fee_bps?: string;
  integrator_fee_bps?: string;
  recovery_enabled?: boolean;
  partner_screening?: boolean;
  forbidden_assets?: string[];
  rate_limits?: Partial<RateLimits>;
}

/**
 * A server shared by many CI jobs: organizations are a budget too (each holds keys, lanes and records). `hosted`:
 * organizations in worlds of their own (worlds.ts), which count against the same server-wide cap.
 */
export function refusePastMaxOrganizations(world: World, hosted = 0): void {
  if (world.orgs.size + hosted >= world.profile.max_organizations) {
    throw new ApiError(
      'quota_exceeded',
      `the server holds its maximum of ${world.profile.max_organizations} organizations (profile max_organizations); delete one first`,
    );
  }
}

/** `organization_id`: given when the id was drawn elsewhere (an organization in a world of its own, worlds.ts). */
export function createOrganization(world: World, input: OrganizationInput = {}, given_id?: string): Organization {
  refusePastMaxOrganizations(world);
  const organization_id = given_id ?? world.newId('org');
  const org: Organization = {
    organization_id,
    // A key swapsim makes: 192 bits from the secret stream (a known --seed says nothing about it).
    api_keys: input.api_keys && input.api_keys.length > 0 ? [...input.api_keys] : [world.sim.secrets.hex(24, 'sk_sim_')],
    platform_fee_bps: input.platform_fee_bps ?? world.profile.default_platform_fee_bps,
    integrator_fee_bps: input.integrator_fee_bps ?? world.profile.default_integrator_fee_bps,
    recovery_enabled: input.recovery_enabled ?? true,
    partner_screening: input.partner_screening ?? false,
    forbidden_assets: [...(input.forbidden_assets ?? [])],
    rate_limits: { ...DEFAULT_RATE_LIMITS, ...input.rate_limits },
    created_at_ms: world.sim.now_ms(),
    accounts_created: 0,
  };
  world.orgs.set(organization_id, org);
  indexKeys(world, org);
  return org;
}

/**
 * Removes an organization and frees what it owns: its keys stop authenticating at once and it leaves every
 * listing; its pending lifecycle work (the scheduler tasks it owns) is cancelled; each resource's
 * `forgetOrganization` drops its entities and index entries (`accounts`: the org's account ids, read
 * before); then its events and the transitions of every entity dropped go. False when unknown.
 */
export function deleteOrganization(
  world: World,
  organization_id: string,
  forget: Array<(world: World, org: Organization, scope: ForgetScope) => void>,
  accounts: ReadonlySet<string>,
): boolean {
  const org = world.orgs.get(organization_id);
  if (!org) return false;
  unindexKeys(world, org);
  world.orgs.delete(organization_id);
  world.sim.scheduler.cancelOwned(organization_id);
  const scope: ForgetScope = { accounts, gone: new Set() };
  for (const f of forget) f(world, org, scope);
  world.events.retain((org_id) => org_id !== organization_id);
  world.transitions.forget(scope.gone);
  return true;
}

/** `own`: the organization's own world (worlds.ts), whose clock the answer shows; absent for the server's clock. */
export function serializeOrganization(org: Organization, own?: World): Record<string, unknown> {
  return {
    ...(own ? { clock: clockState(own.sim.clock) } : {}),
    organization_id: org.organization_id,
    api_key: org.api_keys[0],
    api_keys: org.api_keys,
    platform_fee_bps: org.platform_fee_bps,
    integrator_fee_bps: org.integrator_fee_bps,
    recovery_enabled: org.recovery_enabled,
    partner_screening: org.partner_screening,
    forbidden_assets: org.forbidden_assets,
    rate_limits: org.rate_limits,
    created_at_ms: org.created_at_ms,
  };
}
