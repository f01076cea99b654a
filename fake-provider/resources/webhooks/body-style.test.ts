// Profile `webhook_body_style` at a real receiver: every style's body verifies over the raw bytes and parses to the
// event the feed serves; a receiver that verifies over re-serialized JSON is refused once the bytes differ from
// compact JSON (non-ASCII text in an account label). styleBody alone keeps every value it restyles.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { closeAfterEach, startTestSim } from '../../testing/harness.ts';
import { startReceiver, verify } from '../../../scenarios/dsl/webhook-receiver.ts';
import { DEFAULT_PROFILE, WEBHOOK_BODY_STYLES, type WebhookBodyStyle } from '../../profile.ts';
import { styleBody } from './body-style.ts';

const opened = closeAfterEach(afterEach);
const LABEL = 'Zoë "ü" / 東京 😀';

/** The classic integrator bug: the signature checked over JSON.stringify(JSON.parse(raw)) instead of the raw bytes. */
function verifyReserialized(secret: string, timestamp: string, raw: string, header: string): boolean {
  const expected = Buffer.from(
    `v1=${createHmac('sha256', secret)
      .update(`${timestamp}.${JSON.stringify(JSON.parse(raw))}`)
      .digest('hex')}`,
  );
  const given = Buffer.from(header);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

async function deliveriesWith(style: WebhookBodyStyle) {
  const sim = opened(await startTestSim({ profile: { ...DEFAULT_PROFILE, webhook_body_style: style } }));
  const rx = opened(await startReceiver());
  const hook = await sim.api('POST', '/webhooks', { body: { url: rx.url } });
  rx.secret = hook.body.webhook.secret;
  expect((await sim.api('POST', '/accounts', { body: { label: LABEL, external_id: 'ext/1' } })).status).toBe(200);
  await sim.control('POST', '/clock/advance', { ms: 10_000 });
  const feed = (await sim.api('GET', '/events?limit=100')).body.events;
  return { rx, feed };
}

describe('webhook_body_style', () => {
  for (const style of WEBHOOK_BODY_STYLES) {
    it(`${style}: verifies over the raw bytes and parses to the feed's event; re-serialized JSON ${style === 'compact' ? 'verifies too' : 'is refused'}`, async () => {
      const { rx, feed } = await deliveriesWith(style);
      expect(rx.received.length).toBe(6); // account.created and five wallets
      for (const r of rx.received) {
        expect(r.signature_valid, r.raw).toBe(true);
        expect(r.answered).toBe(200);
        expect(r.body).toEqual(feed.find((e: any) => e.event_id === r.event_id));
      }
      const created = rx.received.find((r) => r.body.type === 'account.created')!;
      expect(created.body.data).toMatchObject({ label: LABEL, external_id: 'ext/1' });
      const h = created.headers;
      expect(verify(rx.secret, h['svc-timestamp'], created.raw, h['svc-signature'])).toBe(true);
      expect(verifyReserialized(rx.secret, h['svc-timestamp'], created.raw, h['svc-signature'])).toBe(style === 'compact');
      if (style === 'compact') expect(created.raw).toBe(JSON.stringify(created.body));
      if (style === 'spaced' || style === 'mixed') expect(created.raw).toMatch(/^\{\n {2}"event_id": "evt_/);
      if (style === 'escaped' || style === 'mixed') {
        expect(created.raw).toMatch(/^[\x20-\x7e\n]*$/); // ASCII only
        expect(created.raw).toContain('Zo\\u00eb \\"\\u00fc\\" \\/ \\u6771\\u4eac \\ud83d\\ude00');
      }
    });
  }
});

describe('styleBody', () => {
  const value = {
    a: [],
    b: {},
    c: [1, -2.5e-7, true, null, 'x'],
    d: { e: [{ f: 'g' }, []], h: '' },
    s: 'quote " backslash \\ slash / tab \t nl \n nul \u0000 del \u007f é \u2028 😀 lone \ud800 }{],[:',
  };
  const compact = JSON.stringify(value);

  it('keeps every value and changes only the bytes each style names', () => {
    expect(styleBody(compact, 'compact')).toBe(compact);
    for (const style of WEBHOOK_BODY_STYLES) expect(JSON.parse(styleBody(compact, style)), style).toEqual(value);
    const spaced = styleBody(compact, 'spaced');
    expect(spaced).toContain(
      '"c": [1, -2.5e-7, true, null, "x"],\n  "d": {\n    "e": [{\n        "f": "g"\n      }, []],\n    "h": ""\n  }',
    );
    expect(spaced.startsWith('{\n  "a": [],\n  "b": {},\n')).toBe(true);
    const escaped = styleBody(compact, 'escaped');
    expect(escaped).toMatch(/^[\x20-\x7e]*$/);
    expect(escaped).toContain('slash \\/ tab \\t nl \\n nul \\u0000 del \\u007f \\u00e9 \\u2028 \\ud83d\\ude00 lone \\ud800 }{],[:');
    expect(styleBody(compact, 'mixed')).toBe(styleBody(escaped, 'spaced'));
  });
});
