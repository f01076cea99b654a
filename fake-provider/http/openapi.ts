// The OpenAPI 3.1 documents, generated from the same zod schemas that validate requests: one for /v1 and
// one for the control plane /_sim. Every operation has an operationId, a named response schema, and its
// error responses with the spec's error envelope; /v1 routes the spec does not list are marked as swapsim
// extras (`x-swapsim-extra`), so generated SDKs and readers can tell them apart. Every tag is declared with
// a description; /v1's `webhooks` section has one entry per event type (its Event envelope, its headers), and
// /_sim declares the bearer control token (`--control-token`) as an optional scheme.
import { extendZodWithOpenApi, OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { openapiPath, type AnyRoute } from '../contract/route.ts';

// Named components (registry.register) carry their name as zod-to-openapi metadata, set through `.openapi()`.
extendZodWithOpenApi(z);

/**
 * `schema`, able to take its name. zod 4 copies a class's methods onto each instance as it is made, so a schema
 * made before the line above ran (the package's bundle evaluates the resources' schemas first) has no
 * `.openapi`: GET /v1/openapi.json answered 500 from the built package. It gets the method zod would have given it.
 */
function nameable<T extends z.ZodType>(schema: T): T {
  const openapi = (z.ZodType.prototype as unknown as { openapi: unknown }).openapi;
  if (typeof (schema as unknown as { openapi?: unknown }).openapi !== 'function')
    Object.defineProperty(schema, 'openapi', { value: openapi, configurable: true, writable: true });
  return schema;
}

/** The endpoints API v1 lists (spec: Endpoints), as `METHOD /path`; any other /v1 route is a swapsim extra. */
export const SPEC_ENDPOINTS: ReadonlySet<string> = new Set([
  'POST /accounts',
  'GET /accounts',
  'POST /accounts/{account_id}/deactivate',
  'PATCH /accounts/{account_id}',
  'POST /accounts/{account_id}/export-keys',
  'POST /public/initiate-export',
  'POST /public/complete-export',
  'GET /public/export-status',
  'POST /accounts/{account_id}/destinations',
  'GET /accounts/{account_id}/destinations',
  'DELETE /accounts/{account_id}/destinations/{destination_id}',
  'GET /accounts/{account_id}/deposit-addresses',
  'POST /accounts/{account_id}/deposit-addresses',
  'GET /accounts/{account_id}/credits',
  'GET /accounts/{account_id}/balances',
  'GET /accounts/{account_id}/history',
  'GET /accounts/{account_id}/activity',
  'POST /rfqs',
  'GET /rfqs/{rfq_id}',
  'GET /quotes/{quote_id}',
  'POST /quotes/{quote_id}/accept',
  'GET /trades/{trade_id}',
  'POST /zaps',
  'GET /zaps',
  'GET /zaps/{zap_id}',
  'POST /cancels',
  'GET /cancels/{cancel_id}',
  'POST /recoveries/{recovery_id}/activate',
  'POST /public/recover-funds',
  'POST /deposits/{deposit_address_id}/flag',
  'PUT /symbols',
  'GET /symbols',
  'DELETE /symbols/{symbol}',
  'GET /assets',
  'GET /resolve',
  'GET /markets',
  'GET /markets/candles',
  'POST /webhooks',
  'GET /webhooks',
  'PATCH /webhooks/{webhook_id}',
  'POST /webhooks/{webhook_id}/rotate-secret',
  'POST /webhooks/{webhook_id}/replay',
  'GET /webhooks/{webhook_id}/deliveries',
  'GET /events',
]);

/** The spec's error envelope (spec: Errors), on every error response. */
export const errorEnvelope = z.object({
  request_id: z.string(),
  error: z.object({
    type: z.string().describe('category; `invalid_request` for request errors'),
    code: z.string().describe('a code of the error catalog'),
    message: z.string(),
    param: z.string().optional().describe('the offending parameter or header, when applicable'),
    request_id: z.string(),
    details: z.record(z.string(), z.unknown()).optional(),
  }),
});

const pascal = (words: string): string =>
  words
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w[0].toUpperCase() + w.slice(1))
    .join('');

/** `post /quotes/{quote_id}/accept` → `postQuotesByQuoteIdAccept`: unique per method and path, stable. */
function operationId(method: string, path: string): string {
  const parts = path
    .split('/')
    .filter(Boolean)
    .map((p) => (p.startsWith('{') ? `By${pascal(p.slice(1, -1))}` : pascal(p)));
  return method.toLowerCase() + parts.join('');
}

const singular = (key: string): string =>
  key.endsWith('sses') ? key.slice(0, -2) : key.endsWith('ies') ? `${key.slice(0, -3)}y` : key.endsWith('s') ? key.slice(0, -1) : key;

/** A name for a response schema, from what it wraps: `{account}` → AccountResponse, `{accounts, has_more…}` → AccountList. */
function responseName(schema: z.ZodType, opId: string): string {
  const shape = schema instanceof z.ZodObject ? Object.keys(schema.shape).filter((k) => k !== 'request_id') : [];
  if (shape.includes('has_more')) {
    const key = shape.find((k) => k !== 'has_more' && k !== 'next_cursor');
    if (key) return `${pascal(singular(key))}List`;
  }
  if (shape.length === 1) return `${pascal(shape[0])}Response`;
  return `${pascal(opId)}Response`;
}

/** What the webhook deliveries carry: the Event union (one object per data shape, `type` an enum). */
export interface WebhookShapes {
  envelope: { options: readonly z.ZodObject[] };
}

const TAG_TEXT: Record<string, string> = {
  Webhooks: 'Webhook endpoints and deliveries; the deliveries themselves are under `webhooks`',
  Control: "swapsim's control plane",
};

interface DocumentOptions {
  title: string;
  server: string;
  /** The bearer scheme applies (the control plane uses its own gate instead). */
  bearer: boolean;
  /** Marks routes the spec does not list (the /v1 document only). */
  markExtras: boolean;
  /** Behind the control gate: loopback clients only, or a bearer control token. */
  gated: boolean;
  description: string;
  /** The event deliveries (the /v1 document only). */
  webhooks?: WebhookShapes;
}

/** One webhook per event type: the Event envelope with `type` fixed, and the signed delivery's headers. */
function registerWebhooks(registry: OpenAPIRegistry, shapes: WebhookShapes): void {
  const headers = z.object({
    'Svc-Signature': z.string().describe('v1=<hex HMAC-SHA256 of "<Svc-Timestamp>." + raw body, keyed with the webhook secret>'),
    'Svc-Timestamp': z.string().describe('wall time of the attempt, ms since the epoch'),
    'Svc-Event-Id': z.string(),
    'Svc-Delivery-Id': z.string(),
    'Svc-Webhook-Id': z.string(),
  });
  for (const member of shapes.envelope.options) {
    const types = (member.shape.type as unknown as { options: string[] }).options;
    for (const type of types) {
      registry.registerWebhook({
        method: 'post',
        path: type,
        operationId: `webhook${pascal(type)}`,
        summary: `${type} delivered to the organization's webhook URL`,
        description:
          "A signed POST of the event (the `Svc` header prefix is the profile's `webhook_header_prefix`). Answer 2xx within the timeout, else it is retried over 72 h.",
        tags: ['Webhooks'],
        // Signed with the webhook secret (Svc-Signature), not sent with a bearer key.
        security: [],
        request: { headers, body: { content: { 'application/json': { schema: member.extend({ type: z.literal(type) }) } } } },
        responses: {
          '200': { description: 'Accepted (any 2xx)' },
          '401': { description: 'Refused: a bad signature or a stale timestamp; the delivery is retried' },
        },
      });
    }
  }
}

function generate(routes: readonly AnyRoute[], opts: DocumentOptions): unknown {
  const registry = new OpenAPIRegistry();
  const envelope = registry.register('ErrorEnvelope', nameable(errorEnvelope));
  const named = new Map<z.ZodType, z.ZodType>();
  const taken = new Set<string>();
  for (const route of routes) {
    const path = openapiPath(route.path);
    const opId = operationId(route.method, path);
    const extra = opts.markExtras && !SPEC_ENDPOINTS.has(`${route.method.toUpperCase()} ${path}`);
    let response = route.response ? named.get(route.response) : undefined;
    if (route.response && !response) {
      let name = responseName(route.response, opId);
      if (taken.has(name)) name = `${pascal(opId)}Response`;
      taken.add(name);
      response = registry.register(name, nameable(route.response));
      named.set(route.response, response);
    }
    const error = (description: string) => ({ description, content: { 'application/json': { schema: envelope } } });
    const bearer = opts.bearer && route.auth !== 'public';
    const responses: Record<string, unknown> = {
      [String(route.status ?? 200)]: response
        ? { description: route.summary, content: { 'application/json': { schema: response } } }
        : { description: route.summary },
    };
    if (route.body || route.query || route.params || route.idempotent)
      responses['400'] = error('Invalid request: parameter_missing, invalid_parameter, invalid_enum and the other 400 codes');
    if (bearer) responses['401'] = error('Missing or invalid bearer API key');
    if (route.params) responses['404'] = error('Not found, or outside the organization');
    if (route.idempotent)
      responses['409'] = error('Conflict: idempotency_key_reuse (the same key with another payload) or a lifecycle conflict');
    if (opts.gated)
      responses['403'] = error(
        'Forbidden: the control plane answers loopback clients only, unless the server has a control token and the request carries it',
      );
    if (opts.bearer) responses['429'] = error('Rate limited (rate_limited); honour Retry-After when present');
    responses.default = error('Any other error, in the same envelope (lifecycle codes take the statuses of the behaviour profile)');
    registry.registerPath({
      method: route.method,
      path,
      operationId: opId,
      summary: route.summary,
      ...(extra
        ? { description: 'swapsim extra: not an endpoint of API v1, kept for convenience in tests.', 'x-swapsim-extra': true }
        : {}),
      tags: [route.tag],
      // The control plane: loopback clients need nothing; with --control-token, the bearer token.
      security: bearer ? [{ bearer: [] }] : opts.gated ? [{}, { controlToken: [] }] : [],
      request: {
        ...(route.params ? { params: route.params as z.ZodObject } : {}),
        ...(route.query ? { query: route.query as z.ZodObject } : {}),
        ...(route.body ? { body: { content: { 'application/json': { schema: route.body } } } } : {}),
        ...(route.idempotent ? { headers: z.object({ 'Idempotency-Key': z.string() }) } : {}),
      },
      responses: responses as never,
    });
  }
  if (opts.bearer)
    registry.registerComponent('securitySchemes', 'bearer', {
      type: 'http',
      scheme: 'bearer',
      description: 'An API key of the organization',
    });
  if (opts.gated) {
    registry.registerComponent('securitySchemes', 'controlToken', {
      type: 'http',
      scheme: 'bearer',
      description: "The server's `--control-token`; without one, the control plane answers loopback clients only and needs no token",
    });
  }
  if (opts.webhooks) registerWebhooks(registry, opts.webhooks);
  const tagNames = [...new Set([...routes.map((r) => r.tag), ...(opts.webhooks ? ['Webhooks'] : [])])].sort();
  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    tags: tagNames.map((name) => ({ name, description: TAG_TEXT[name] ?? `${name}: the ${name.toLowerCase()} endpoints` })),
    info: { title: opts.title, version: '1', description: opts.description, license: { name: 'MIT', identifier: 'MIT' } },
    servers: [{ url: opts.server }],
  });
}

/** GET /v1/openapi.json. */
export function v1Document(routes: readonly AnyRoute[], webhooks?: WebhookShapes): unknown {
  return generate(routes, {
    title: 'Crypto Swap Routing Service API v1 (swapsim)',
    server: '/v1',
    bearer: true,
    markExtras: true,
    gated: false,
    webhooks,
    description:
      'The API swapsim fakes, generated from the schemas that validate its requests. Operations marked x-swapsim-extra are not in API v1.',
  });
}

/** GET /_sim/openapi.json: the control plane (loopback, or a bearer control token when the server has one). */
export function controlDocument(routes: readonly AnyRoute[]): unknown {
  return generate(routes, {
    title: 'swapsim control plane',
    server: '/_sim',
    bearer: false,
    markExtras: false,
    gated: true,
    description: "swapsim's own endpoints: clock, organizations, deposits, faults, screening, invariants, conduct. Not part of API v1.",
  });
}
