// Property over the webhook destination guard's input space: every URL that spells swapsim's own listening
// address (any loopback or unspecified IPv4 in dotted, integer, hex, octal or short form; IPv6 loopback,
// unspecified and IPv4-mapped loopback; `localhost` and `*.localhost` names in any case, with a trailing dot;
// with or without userinfo, any path) on its port, and every URL whose path reaches `/_sim` however it is
// spelled, is refused at POST /webhooks with 400 webhook_url_forbidden; the same hosts on another port, and
// an outside address, are accepted (a guard that refuses everything fails too). What counts as "own" comes
// from the URL standard and RFC 6761, not from the guard's code.
// Runs: SWAPSIM_GUARD_RUNS (default 80); SWAPSIM_GUARD_SEED (+ SWAPSIM_GUARD_PATH) reruns a seed; a failure
// prints seed, path and the counterexample.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSim, type TestSim } from '../../fake-provider/testing/harness.ts';

const RUNS = Number(process.env.SWAPSIM_GUARD_RUNS ?? 80);
const SEED = process.env.SWAPSIM_GUARD_SEED ? Number(process.env.SWAPSIM_GUARD_SEED) : undefined;
const PATH = process.env.SWAPSIM_GUARD_PATH;

let sim: TestSim;
let key: string;
beforeAll(async () => {
  sim = await startTestSim({ seed: 'webhook-guard' });
  key = (await sim.newOrg({ rate_limits: { reads: 100_000, writes: 100_000, indicative_rfqs: 100_000, firm_rfqs: 100_000 } })).api_key;
});
afterAll(() => sim.close());

const octet = fc.integer({ min: 0, max: 255 });

/** An IPv4 address in 127.0.0.0/8 or 0.0.0.0/8 (this machine), in one of the spellings a URL parser accepts. */
const ownIpv4 = fc
  .tuple(fc.constantFrom(127, 0), octet, octet, octet, fc.constantFrom('dotted', 'integer', 'hex', 'octal', 'short'))
  .map(([a, b, c, d, form]) => {
    const n = ((a << 24) >>> 0) + (b << 16) + (c << 8) + d;
    if (form === 'integer') return String(n);
    if (form === 'hex') return `0x${n.toString(16)}`;
    if (form === 'octal') return `0${a.toString(8)}.${b}.${c}.${d}`;
    if (form === 'short') return `${a}.${(b << 16) + (c << 8) + d}`;
    return `${a}.${b}.${c}.${d}`;
  });

const ownIpv6 = fc.oneof(
  fc.constantFrom('[::1]', '[0:0:0:0:0:0:0:1]', '[0000::0001]', '[::]', '[0::0]'),
  fc.tuple(octet, octet, octet).map(([b, c, d]) => `[::ffff:127.${b}.${c}.${d}]`),
);

const label = fc.stringMatching(/^[a-z][a-z0-9-]{0,10}[a-z0-9]$/);
const caseOf = (s: string, mask: number): string => [...s].map((ch, i) => ((mask >> (i % 16)) & 1 ? ch.toUpperCase() : ch)).join('');
const localName = fc
  .tuple(fc.option(label, { nil: undefined }), fc.integer({ min: 0, max: 0xffff }), fc.boolean())
  .map(([sub, mask, dot]) => `${sub ? `${sub}.` : ''}${caseOf('localhost', mask)}${dot ? '.' : ''}`);

const ownHost = fc.oneof(ownIpv4, ownIpv6, localName);
const userinfo = fc.constantFrom('', 'user@', 'user:pw@');
const path = fc.constantFrom('', '/', '/hooks', '/v1/accounts?x=1', '/hooks#frag', '/a/../hooks');

/** `/_sim` as a path may spell it (case, percent-encoding, repeated slashes), before the rest of a path. */
const controlPath = fc
  .tuple(
    fc.constantFrom('/', '//', '///'),
    fc.constantFrom('_sim', '%5Fsim', '%5fsim'),
    fc.integer({ min: 0, max: 0xffff }),
    fc.constantFrom('', '/', '/reset', '/clock/advance?ms=1'),
  )
  .map(
    ([slashes, name, mask, rest]) =>
      `${slashes}${name.startsWith('%') ? name.slice(0, 3) + caseOf(name.slice(3), mask) : caseOf(name, mask)}${rest}`,
  );

async function register(url: string): Promise<[number, string | undefined]> {
  const res = await sim.api('POST', '/webhooks', { key, body: { url, active: false } });
  expect(res.status, `POST /webhooks ${url}: ${JSON.stringify(res.body)}`).toBeLessThan(500);
  return [res.status, res.body.error?.code];
}

const REFUSED: [number, string] = [400, 'webhook_url_forbidden'];

describe('webhook destination guard over its input space', () => {
  it(`refuses every spelling of swapsim's own address and of /_sim, and accepts the rest (${RUNS} runs)`, {
    timeout: 300_000,
  }, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('http', 'https'),
        userinfo,
        ownHost,
        path,
        controlPath,
        fc.integer({ min: 1, max: 254 }),
        async (scheme, user, host, p, control, outside) => {
          const port = sim.running.port;
          const own = `${scheme}://${user}${host}:${port}${p}`;
          expect(await register(own), `own address ${own} (parsed: ${new URL(own).host})`).toEqual(REFUSED);
          const controlUrl = `${scheme}://203.0.113.${outside}:8443${control}`;
          expect(await register(controlUrl), `control plane ${controlUrl} (parsed path: ${new URL(controlUrl).pathname})`).toEqual(REFUSED);
          // The same host on another port, and an outside address, are ordinary destinations.
          const elsewhere = `${scheme}://${user}${host}:${port === 65535 ? port - 1 : port + 1}${p}`;
          const ok = await register(elsewhere);
          expect(ok[0], `another port ${elsewhere}: ${JSON.stringify(ok)}`).toBe(200);
          const outsideUrl = `${scheme}://203.0.113.${outside}:8443/hooks`;
          expect((await register(outsideUrl))[0], `outside ${outsideUrl}`).toBe(200);
        },
      ),
      { numRuns: RUNS, seed: SEED, path: PATH, verbose: 1, includeErrorInReport: true },
    );
  });
});
