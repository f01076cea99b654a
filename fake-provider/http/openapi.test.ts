// The OpenAPI documents as a client gets them over HTTP: /v1's lists every endpoint of the spec exactly
// once and marks what else it serves as a swapsim extra; both documents give every operation an
// operationId, a named response schema and error responses in the envelope; and a real linter (Redocly's
// recommended rules) finds no problem in either; the resources inside responses are named components.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { startTestSim, type TestSim } from '../testing/harness.ts';
import { SPEC_ENDPOINTS } from './openapi.ts';

type Doc = {
  paths: Record<string, Record<string, any>>;
  components: { schemas: Record<string, unknown>; securitySchemes?: Record<string, any> };
  tags?: Array<{ name: string; description?: string }>;
  webhooks?: Record<string, Record<string, any>>;
};

let sim: TestSim;
let v1: Doc;
let control: Doc;

beforeAll(async () => {
  sim = await startTestSim();
  v1 = (await sim.api('GET', '/openapi.json')).body;
  control = (await sim.control('GET', '/openapi.json')).body;
});
afterAll(() => sim.close());

const operations = (doc: Doc) =>
  Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => ({ key: `${method.toUpperCase()} ${path}`, op })),
  );

async function lint(doc: Doc): Promise<string[]> {
  // recommended-strict (every warning an error), plus: every tag an operation uses is declared.
  const config = await createConfig({
    extends: ['recommended-strict'],
    rules: { 'operation-tag-defined': 'error', 'tag-description': 'error' },
  });
  const problems = await lintFromString({ source: JSON.stringify(doc), absoluteRef: 'openapi.json', config });
  return problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer ?? ''}`);
}

describe('OpenAPI documents', () => {
  it('/v1 lists every endpoint of the spec once, and marks the rest as swapsim extras', () => {
    const ops = operations(v1);
    const listed = ops
      .filter((o) => !o.op['x-swapsim-extra'])
      .map((o) => o.key)
      .sort();
    expect(listed).toEqual([...SPEC_ENDPOINTS].sort());
    const extras = ops.filter((o) => o.op['x-swapsim-extra']).map((o) => o.key);
    expect(extras).toContain('GET /accounts/{account_id}');
    for (const e of ops.filter((o) => o.op['x-swapsim-extra'])) expect(e.op.description).toMatch(/swapsim extra/);
  });

  it('every operation has a unique operationId, a named response schema and its errors in the envelope', () => {
    for (const doc of [v1, control]) {
      const ops = operations(doc);
      const ids = ops.map((o) => o.op.operationId);
      expect(ids.every((id) => typeof id === 'string' && id.length > 0)).toBe(true);
      expect(new Set(ids).size).toBe(ids.length);
      for (const { key, op } of ops) {
        const codes = Object.keys(op.responses);
        expect(codes.some((c) => /^4\d\d$/.test(c)) || codes.includes('default'), key).toBe(true);
        expect(op.responses.default.content['application/json'].schema.$ref, key).toBe('#/components/schemas/ErrorEnvelope');
        const ok = op.responses[codes.find((c) => /^2\d\d$/.test(c))!];
        const schema = ok.content?.['application/json']?.schema;
        if (schema) expect(schema.$ref, `${key}: a named response schema`).toMatch(/^#\/components\/schemas\//);
      }
    }
    expect(v1.components.schemas).toHaveProperty('ErrorEnvelope');
    expect(Object.keys(v1.components.schemas)).toEqual(
      expect.arrayContaining(['AccountResponse', 'AccountList', 'TradeResponse', 'EventList']),
    );
  });

  it('the resources inside responses are named components, referenced with $ref', () => {
    const refs = (doc: Doc): Set<string> =>
      new Set([...JSON.stringify(doc).matchAll(/"\$ref":"#\/components\/schemas\/([A-Za-z0-9]+)"/g)].map((m) => m[1]));
    const resources = [
      'Account',
      'Destination',
      'DepositAddress',
      'Credit',
      'Balance',
      'Rfq',
      'Quote',
      'Trade',
      'Zap',
      'Cancel',
      'Asset',
      'Market',
      'Candle',
      'Webhook',
      'Delivery',
      'Event',
      'HistoryRecord',
    ];
    const used = refs(v1);
    for (const name of resources) {
      expect(v1.components.schemas, name).toHaveProperty(name);
      expect(used.has(name), `${name} is referenced`).toBe(true);
    }
    // Inside a response the resource is a reference, not an inline copy.
    const accountResponse = v1.components.schemas.AccountResponse as { properties: { account: { $ref?: string } } };
    expect(accountResponse.properties.account.$ref).toBe('#/components/schemas/Account');
    const eventList = v1.components.schemas.EventList as { properties: { events: { items: { $ref?: string } } } };
    expect(eventList.properties.events.items.$ref).toBe('#/components/schemas/Event');
    // The event union names each type once, discriminated by `type`.
    const event = v1.components.schemas.Event as { oneOf: Array<{ properties: { type: { enum: string[] } } }> };
    const types = event.oneOf.flatMap((o) => o.properties.type.enum);
    expect(new Set(types).size).toBe(types.length);
    expect(types).toEqual(expect.arrayContaining(['deposit.verified', 'trade.settled', 'zap.failed', 'account.key_exported']));
    expect(refs(control).has('SimDeposit')).toBe(true);
  });

  it('/_sim has a document of its own, apart from /v1', () => {
    const keys = operations(control).map((o) => o.key);
    expect(keys).toEqual(expect.arrayContaining(['GET /invariants', 'POST /clock/advance', 'POST /faults', 'POST /organizations']));
    expect(operations(v1).some((o) => o.key.includes('invariants'))).toBe(false);
  });

  it('declares every tag it uses, with a description', () => {
    for (const doc of [v1, control]) {
      const used = new Set(
        [...operations(doc), ...Object.values(doc.webhooks ?? {}).flatMap((ops) => Object.values(ops).map((op) => ({ op })))].flatMap(
          ({ op }) => op.tags as string[],
        ),
      );
      expect(doc.tags?.map((t) => t.name).sort()).toEqual([...used].sort());
      for (const tag of doc.tags ?? []) expect(tag.description, tag.name).toBeTruthy();
    }
  });

  it('/v1 has a webhook per event type: the Event envelope with its type fixed, and the signed headers', async () => {
    const { EVENT_TYPES } = await import('../resources/events/schemas.ts');
    expect(Object.keys(v1.webhooks ?? {}).sort()).toEqual([...EVENT_TYPES].sort());
    const settled = v1.webhooks!['trade.settled']!.post;
    const body = settled.requestBody.content['application/json'].schema;
    expect(body.properties.type).toEqual({ type: 'string', enum: ['trade.settled'] });
    expect(body.required).toEqual(expect.arrayContaining(['event_id', 'type', 'created_at_ms', 'account_id', 'data']));
    expect(body.properties.data.required).toEqual(expect.arrayContaining(['trade_id', 'credit_id']));
    expect(settled.parameters.map((p: { name: string; in: string }) => `${p.in} ${p.name}`)).toEqual(
      expect.arrayContaining(['header Svc-Signature', 'header Svc-Timestamp']),
    );
    expect(control.webhooks ?? {}).toEqual({});
  });

  it('/_sim declares the control token as an optional bearer scheme; /health needs none', () => {
    expect(control.components.securitySchemes).toEqual({ controlToken: expect.objectContaining({ type: 'http', scheme: 'bearer' }) });
    expect(control.paths['/invariants']!.get.security).toEqual([{}, { controlToken: [] }]);
    expect(control.paths['/health']?.get.security ?? []).toEqual([]);
    expect(v1.components.securitySchemes).toEqual({ bearer: expect.objectContaining({ type: 'http', scheme: 'bearer' }) });
  });

  it('a real linter (Redocly, recommended-strict rules) finds no problem in either document', async () => {
    expect(await lint(v1)).toEqual([]);
    expect(await lint(control)).toEqual([]);
  });
});
