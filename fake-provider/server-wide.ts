// Control calls that set the market and screening for every tenant that shares the server clock: unscoped, they
// run in the server's world and in every world that follows its clock (as they did when those tenants shared
// the server's world), and a follower created later starts with them too (each call is kept, the latest per what
// it sets, and run again in the new world). Scoped to an organization, they set that organization's world alone.
// Reads over every tenant (the conduct of every key, the OTP inbox, the deposits and the timeline, unfiltered)
// gather every world's rows when unscoped, as they did when those tenants shared the server's world.
import type { AnyRoute } from './contract/route.ts';
import type { Runtime } from './runtime.ts';
import type { World } from './world.ts';

/** The calls that set shared market or screening state, and what each sets (the key under which the latest is kept). */
const SETS: Record<string, (input: any) => string> = {
  'put /market/prices': (i) => `prices ${Object.keys(i.body.prices).sort().join(',')}`,
  'put /market/liquidity': (i) => `liquidity ${i.body.pairs.map((p: any) => `${p.from_asset_key}|${p.to_asset_key}`).join(',')}`,
  'post /screening/addresses': (i) => `screening ${i.body.address}`,
  'delete /screening/addresses/:address': (i) => `screening ${i.params.address}`,
};

/**
 * Unscoped reads over every tenant: the array each answers under. Run in the server's world, they read every world
 * with the same filters (ids are unique across worlds, so a filter naming one tenant's entities finds them
 * wherever they are; one naming an account or key was routed to its world already, worlds.ts, and read there
 * alone). `narrowedBy`: a filter whose answer is not the array (conduct for one key). `sim_ms`: rows carry it
 * and are merged in time order (a stable sort: within one instant, the server's world first, then by creation).
 */
const GATHERS: Record<string, { key: string; narrowedBy: string[]; sim_ms?: boolean }> = {
  'get /conduct': { key: 'conduct', narrowedBy: ['api_key'] },
  'get /emails': { key: 'emails', narrowedBy: [] },
  'get /deposits': { key: 'deposits', narrowedBy: [] },
  'get /timeline': { key: 'timeline', narrowedBy: ['organization_id'], sim_ms: true },
};

/** The routes with the server-wide ones wrapped (the rest as they are). */
export function serverWideRoutes(runtime: Runtime, routes: AnyRoute[]): AnyRoute[] {
  return routes.map((route) => {
    const gathers = GATHERS[`${route.method} ${route.path}`];
    if (gathers !== undefined) return gathering(runtime, route, gathers);
    const setsOf = SETS[`${route.method} ${route.path}`];
    if (setsOf === undefined) return route;
    return {
      ...route,
      handler: async (input: any, ctx: { world: World }) => {
        const reply = await route.handler(input, ctx);
        if (ctx.world !== runtime.world || (reply.status ?? 200) >= 300) return reply;
        const key = setsOf(input);
        runtime.serverWide.delete(key);
        runtime.serverWide.set(key, { route, input });
        for (const hosted of runtime.worlds.values()) if (hosted.follows) await route.handler(input, { ...ctx, world: hosted.world });
        return reply;
      },
    };
  });
}

/** A new follower starts with the server-wide settings, in the order they were last made (their handlers are synchronous). */
export function inheritServerWide(runtime: Pick<Runtime, 'serverWide'>, world: World): void {
  for (const { route, input } of runtime.serverWide.values()) void route.handler(input, { world, request_id: '', ip: '' });
}

function gathering(runtime: Runtime, route: AnyRoute, g: { key: string; narrowedBy: string[]; sim_ms?: boolean }): AnyRoute {
  return {
    ...route,
    handler: async (input: any, ctx: { world: World }) => {
      const reply = await route.handler(input, ctx);
      const narrowed = g.narrowedBy.some((f) => input.query?.[f] !== undefined);
      if (ctx.world !== runtime.world || narrowed || runtime.worlds.size === 0 || (reply.status ?? 200) >= 300) return reply;
      const rows = [...(reply.body![g.key] as unknown[])];
      for (const hosted of runtime.worlds.values()) {
        const more = await route.handler(input, { ...ctx, world: hosted.world });
        rows.push(...(more.body![g.key] as unknown[]));
      }
      if (g.sim_ms) rows.sort((a, b) => (a as { sim_ms: number }).sim_ms - (b as { sim_ms: number }).sim_ms);
      return { ...reply, body: { ...reply.body, [g.key]: rows } };
    },
  };
}
