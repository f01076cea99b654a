// Test helper: records every JSON reply the process fetches from a swapsim (/v1 and /_sim), and checks each
// 2xx against the response schema its route declares, the schema the typed clients and OpenAPI are built from.
import { apiRoutes } from '../app.ts';
import { controlRoutes } from '../control/routes.ts';
import FindMyWay from 'find-my-way';
import { RESOURCES } from '../resources/index.ts';
import type { AnyRoute } from '../contract/route.ts';

/** The routes under `prefix` in the server's router (fastify's find-my-way, its options), each storing its declaration. */
function routerOf(prefix: string, routes: readonly AnyRoute[]) {
  const router = FindMyWay({ caseSensitive: false, ignoreTrailingSlash: true });
  for (const route of routes) router.on(route.method.toUpperCase() as 'GET', prefix + route.path, () => undefined, route);
  return router;
}

interface Seen {
  method: string;
  url: string;
  status: number;
  body: unknown;
}

/** Wraps globalThis.fetch until `stop()`; `mismatches()` lists each route whose replies broke its schema. */
export function recordReplies() {
  const seen: Seen[] = [];
  const original = globalThis.fetch;
  globalThis.fetch = (async (input: Parameters<typeof fetch>[0], init?: RequestInit) => {
    const res = await original(input, init);
    const text = await res.clone().text();
    try {
      seen.push({ method: init?.method ?? 'GET', url: String(input), status: res.status, body: text ? JSON.parse(text) : undefined });
    } catch {
      /* not JSON: nothing to check */
    }
    return res;
  }) as typeof fetch;
  return {
    stop: () => void (globalThis.fetch = original),
    mismatches(): { checked: number; routes: string[]; problems: string[] } {
      // controlRoutes reads its runtime only inside handlers, which never run here.
      const control = [...controlRoutes({} as Parameters<typeof controlRoutes>[0]), ...RESOURCES.flatMap((r) => r.control ?? [])];
      const routers = [routerOf('/v1', apiRoutes()), routerOf('/_sim', control)];
      let checked = 0;
      const routes = new Set<string>();
      const problems = new Map<string, string>();
      for (const r of seen) {
        if (r.status < 200 || r.status > 299) continue;
        const path = new URL(r.url).pathname;
        const found = routers.map((router) => router.find(r.method as 'GET', path)).find((f) => f !== null);
        const route = found?.store as AnyRoute | undefined;
        const schema = route?.response;
        if (!route || !schema) continue;
        checked++;
        const key = `${r.method} ${route.path}`;
        routes.add(key);
        const parsed = schema.safeParse(r.body);
        if (!parsed.success && !problems.has(key))
          problems.set(
            key,
            `${key}: ${parsed.error.issues
              .slice(0, 3)
              .map((i) => `${i.path.join('.')} ${i.message}`)
              .join('; ')}`,
          );
      }
      return { checked, routes: [...routes], problems: [...problems.values()] };
    },
  };
}
