// The control plane's own routes (organizations, clock, faults, invariants, emails, reset). Resource-
// specific control routes live with their resource. Handlers call model operations, never edit state.
import { z } from 'zod';
import type { Runtime } from '../runtime.ts';
import { defineRoute, replyContract } from '../contract/route.ts';
import { ApiError } from '../contract/errors.ts';
import { bpsString } from '../contract/validate.ts';
import { assetByKey, isCanonicalAssetKey } from '../resources/assets/catalog.ts';
import { createOrganization, deleteOrganization, refusePastMaxOrganizations, serializeOrganization } from '../organizations.ts';
import { advanceServer, allOrganizations, createOrgWorld, dropOrgWorld, orgOfKeyAnywhere, settleServer } from '../worlds.ts';
import { forgetOrganizationConduct } from '../conduct/index.ts';
import { forgetIdempotency } from '../http/idempotency.ts';
import { forgetIdempotencyLedger } from '../oracle/idempotency-ledger.ts';
import { accountIdsOf } from '../resources/accounts/index.ts';
import { forgetEmails } from '../emails.ts';
import type { ForgetScope } from '../resource-records.ts';
import type { Organization, World } from '../world.ts';
import { clockState } from '../../sim/clock.ts';
import { RESOURCES } from '../resources/index.ts';
import { checkFault, faultBody } from './faults.ts';
import { checkInvariants } from './invariants.ts';
import {
  advanceReply,
  clockReply,
  emailList,
  faultList,
  faultReply,
  invariantsReply,
  organizationList,
  organizationReply,
  settleReply,
} from './schemas.ts';
import { emailsFor } from '../emails.ts';
import { timelineRoutes } from './timeline.ts';
import { seedRoutes } from '../seed/routes.ts';
import { snapshotRoutes } from '../persistence/routes.ts';

const tag = 'Control';
/**
 * A control call's organization scope (worlds.ts routes the call by it before the body is parsed, and takes it off
 * the body): declared here so the OpenAPI document and the typed clients show it.
 */
const scope = z
  .string()
  .min(1)
  .max(256)
  .optional()
  .describe("run the call in this organization's own world (one created with a clock); absent: the server's");
const HOUR = 3_600_000;

const orgBody = z.object({
  api_key: z.string().min(8).max(256).optional(),
  platform_fee_bps: bpsString.optional(),
  integrator_fee_bps: bpsString.optional(),
  recovery_enabled: z.boolean().optional(),
  partner_screening: z.boolean().optional(),
  // Validated asset keys (grammar, then catalog), so a policy never names an asset that cannot exist.
  forbidden_assets: z
    .array(
      z
        .string()
        .refine(isCanonicalAssetKey, { message: 'must be a canonical asset_key', params: { api_code: 'invalid_asset_key' } })
        .refine((k) => assetByKey(k) !== undefined, { message: 'is not a supported asset', params: { api_code: 'asset_not_supported' } }),
    )
    .max(1000)
    .optional(),
  rate_limits: z
    .object({
      reads: z.number().int().min(1).max(1_000_000).optional(),
      writes: z.number().int().min(1).max(1_000_000).optional(),
      indicative_rfqs: z.number().int().min(1).max(1_000_000).optional(),
      firm_rfqs: z.number().int().min(1).max(1_000_000).optional(),
    })
    .optional(),
  // A clock of its own (worlds.ts), like a Stripe test clock: the organization then lives in a world of its own.
  clock: z
    .object({
      mode: z.enum(['virtual', 'realtime']),
      start_ms: z.number().int().min(0).max(8_640_000_000_000).optional(),
      speed: z.number().min(0.001).max(1_000_000).optional(),
    })
    .strict()
    .optional(),
});

export function controlRoutes(runtime: Runtime) {
  // The clock of the world the call runs in: the server's, or the scoped organization's own (worlds.ts).
  const clock = (world: World) => clockState(world.sim.clock);
  return [
    defineRoute({
      auth: 'public',
      method: 'post',
      path: '/organizations',
      tag,
      summary: 'Create an organization',
      body: orgBody,
      response: organizationReply,
      handler: ({ body }, { world }) => {
        if (body.api_key !== undefined && orgOfKeyAnywhere(runtime, body.api_key) !== undefined) {
          throw new ApiError('invalid_parameter', 'that api_key already belongs to an organization', { param: 'api_key' });
        }
        const { clock: own, api_key, ...input } = body;
        const settings = { ...input, api_keys: api_key ? [api_key] : undefined };
        if (own !== undefined) {
          const org = createOrgWorld(runtime, settings, own);
          return { body: { organization: serializeOrganization(org, runtime.worlds.get(org.organization_id)!.world) } };
        }
        // Without a clock: a world of its own whose clock follows the server's (worlds.ts), unless the server keeps
        // its tenants in its own world (`org_worlds: 'shared'`: one tenant, as `swapsim scenario run` serves).
        if (runtime.options.org_worlds !== 'shared')
          return { body: { organization: serializeOrganization(createOrgWorld(runtime, settings, null)) } };
        refusePastMaxOrganizations(world, runtime.worlds.size);
        const org = createOrganization(world, settings);
        return { body: { organization: serializeOrganization(org) } };
      },
    }),
    defineRoute({
      auth: 'public',
      method: 'get',
      path: '/organizations',
      tag,
      summary: 'List organizations',
      response: organizationList,
      handler: () => ({
        body: { organizations: allOrganizations(runtime).map((o) => serializeOrganization(o.org, o.own_clock ? o.world : undefined)) },
      }),
    }),
    defineRoute({
      auth: 'public',
      method: 'delete',
      path: '/organizations/:organization_id',
      tag,
      summary: 'Remove an organization and its keys',
      params: z.object({ organization_id: z.string().min(1).max(256) }),
      handler: ({ params }, { world }) => {
        // An organization in a world of its own: its whole world goes (clock, scheduler, outbox, stores).
        if (dropOrgWorld(runtime, params.organization_id)) return { body: { deleted: true, organization_id: params.organization_id } };
        const forget = [
          ...RESOURCES.flatMap((r) => (r.forgetOrganization ? [r.forgetOrganization] : [])),
          forgetOrganizationConduct,
          (w: World, org: Organization) => forgetIdempotency(w, org.organization_id),
          (w: World, org: Organization) => forgetIdempotencyLedger(w, org.organization_id),
          (w: World, _org: Organization, scope: ForgetScope) => forgetEmails(w, scope.accounts),
        ];
        if (!deleteOrganization(world, params.organization_id, forget, new Set(accountIdsOf(world, params.organization_id)))) {
          throw new ApiError('not_found', `no organization ${params.organization_id}`, { param: 'organization_id' });
        }
        return { body: { deleted: true, organization_id: params.organization_id } };
      },
    }),
    defineRoute({
      auth: 'public',
      method: 'get',
      path: '/profile',
      tag,
      summary: 'The active behaviour-profile settings',
      handler: (_i, { world }) => ({ body: { profile: world.profile } }),
    }),
    defineRoute({
      auth: 'public',
      method: 'get',
      path: '/clock',
      tag,
      summary: 'Read the sim clock',
      response: clockReply,
      query: z.object({ organization_id: scope }),
      handler: (_i, { world }) => ({ body: { clock: clock(world) } }),
    }),
    defineRoute({
      auth: 'public',
      method: 'post',
      path: '/clock/advance',
      tag,
      summary: 'Advance the sim clock, running what falls due',
      body: z.object({
        ms: z
          .number()
          .int()
          .min(0)
          .max(365 * 24 * HOUR),
        organization_id: scope,
      }),
      response: advanceReply,
      handler: async ({ body }, { world }) => {
        // The server's clock moves every organization's that follows it (worlds.ts).
        const ran = world === runtime.world ? await advanceServer(runtime, body.ms) : await world.sim.scheduler.advance(body.ms);
        return { body: { clock: clock(world), ran } };
      },
    }),
    defineRoute({
      auth: 'public',
      method: 'post',
      path: '/clock/speed',
      tag,
      summary: "Change a realtime clock's speed (sim ms per wall ms), from now on",
      body: z.object({ speed: z.number().min(0.001).max(1_000_000), organization_id: scope }),
      response: clockReply,
      handler: ({ body }, { world }) => {
        if (world.sim.clock.mode !== 'realtime')
          throw new ApiError('clock_not_realtime', 'a virtual clock has no speed: it moves only when advanced (POST /_sim/clock/advance)');
        world.sim.clock.setSpeed(body.speed);
        return { body: { clock: clock(world) } };
      },
    }),
    defineRoute({
      auth: 'public',
      method: 'post',
      path: '/clock/settle',
      tag,
      summary: 'Advance until no scheduled work remains (default bound 80 h)',
      body: z.object({
        max_ms: z
          .number()
          .int()
          .min(0)
          .max(365 * 24 * HOUR)
          .optional(),
        organization_id: scope,
      }),
      response: settleReply,
      handler: async ({ body }, { world }) => {
        const max_ms = body.max_ms ?? 80 * HOUR;
        if (world === runtime.world) {
          const { report, pending } = await settleServer(runtime, max_ms);
          return { body: { clock: clock(world), ran: report, pending } };
        }
        const ran = await world.sim.scheduler.settle(max_ms);
        return { body: { clock: clock(world), ran, pending: world.sim.scheduler.pending() } };
      },
    }),
    defineRoute({
      auth: 'public',
      method: 'post',
      path: '/faults',
      tag,
      summary: 'Add a fault rule',
      body: faultBody,
      response: faultReply,
      handler: ({ body }, { world }) => {
        checkFault(body.target, body.effect, body.match);
        const rule = world.sim.faults.add(
          {
            target: body.target,
            effect: body.effect,
            match: body.match ?? {},
            probability: body.probability ?? 1,
            times: body.times ?? null,
          },
          world.newId('fault'),
          world.sim.now_ms(),
        );
        return { body: { fault: rule } };
      },
    }),
    defineRoute({
      auth: 'public',
      method: 'get',
      path: '/faults',
      tag,
      summary: 'Fault rules and what fired',
      response: faultList,
      handler: (_i, { world }) => {
        // Unscoped: the server's rules, and what fired of them anywhere (they hold in the followers' worlds too).
        const fired = world.sim.faults.firings();
        if (world === runtime.world)
          for (const hosted of runtime.worlds.values())
            if (hosted.follows) {
              const ids = new Set(world.sim.faults.list().map((r) => r.fault_id));
              for (const f of hosted.world.sim.faults.firings()) if (ids.has(f.fault_id)) fired.push(f);
            }
        return { body: { faults: world.sim.faults.list(), fired } };
      },
    }),
    defineRoute({
      auth: 'public',
      method: 'delete',
      path: '/faults/:fault_id',
      tag,
      summary: 'Remove a fault rule',
      params: z.object({ fault_id: z.string().min(1) }),
      handler: ({ params }, { world }) => {
        if (!world.sim.faults.remove(params.fault_id))
          throw new ApiError('not_found', `no fault ${params.fault_id}`, { param: 'fault_id' });
        return { body: { deleted: true, fault_id: params.fault_id } };
      },
    }),
    defineRoute({
      auth: 'public',
      method: 'get',
      path: '/invariants',
      tag,
      summary: 'Check every invariant over the whole state',
      response: invariantsReply,
      handler: (_i, { world }) => {
        const result = checkInvariants(world);
        // Unscoped: the organizations with worlds of their own are checked too, each named in its violations.
        if (world === runtime.world) {
          for (const [id, hosted] of runtime.worlds) {
            for (const v of checkInvariants(hosted.world).violations)
              result.violations.push({ ...v, message: `organization ${id} (${hosted.follows ? 'own world' : 'own clock'}): ${v.message}` });
          }
        }
        for (const bug of runtime.bugs)
          result.violations.push({ invariant: 'no_internal_errors', message: `${bug.request_id}: ${bug.message}` });
        return {
          body: {
            ok: result.violations.length === 0,
            checked: result.checked,
            violations: result.violations,
            ...(result.skipped.length > 0 ? { skipped: result.skipped } : {}),
          },
        };
      },
    }),
    defineRoute({
      auth: 'public',
      method: 'get',
      path: '/emails',
      tag,
      summary: 'The OTP inbox',
      response: emailList,
      query: z.object({ account_id: z.string().min(1).optional() }),
      handler: ({ query }, { world }) => ({ body: { emails: emailsFor(world, query.account_id) } }),
    }),
    defineRoute({
      auth: 'public',
      method: 'post',
      path: '/reset',
      tag,
      summary: 'Empty world, same settings',
      handler: () => {
        const world = runtime.reset();
        return { body: { reset: true, clock: clockState(world.sim.clock) } };
      },
    }),
    ...timelineRoutes(),
    ...seedRoutes(runtime),
    ...snapshotRoutes(runtime),
  ];
}

/**
 * The control routes' contracts (method, path, schemas), without their handlers and so without a runtime: what
 * the typed clients read (lib/api-types.ts). Declaring reads no runtime; only handlers do.
 */
export const CONTROL_CONTRACTS = controlRoutes(undefined as never).map(replyContract);
