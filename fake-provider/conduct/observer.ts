// Conduct as an observer of the serving pipeline: each authenticated /v1 answer becomes one conduct record
// (recorder.ts), with only the query parameters the route declares kept (the others counted).
import type { RequestObserver } from '../http/pipeline.ts';
import { queryNamesOf } from '../http/pipeline.ts';
import { recordRequest } from './recorder.ts';

export const conductObserver: RequestObserver = {
  answered(a) {
    const names = queryNamesOf(a.route);
    let query = a.query;
    let unknown_query_params = 0;
    for (const name in a.query) if (!names.has(name)) unknown_query_params++;
    if (unknown_query_params > 0) {
      query = {};
      for (const name in a.query) if (names.has(name)) query[name] = a.query[name];
    }
    const err = (a.reply.body as { error?: { code?: string } } | undefined)?.error;
    recordRequest(a.world, a.api_key, {
      request_id: a.request_id,
      wall_ms: a.wall_ms,
      method: a.method,
      path: a.path,
      route_path: a.route.path,
      query,
      unknown_query_params,
      body: a.body,
      body_fingerprint: a.body_fingerprint,
      idempotency_key: a.idempotency_key,
      status: a.status,
      reply_body: a.reply.body,
      headers: a.reply.headers,
      error_code: err?.code ?? null,
      lost: a.lost,
    });
  },
};
