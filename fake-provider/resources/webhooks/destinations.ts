// Where a webhook may point: never at swapsim's own listening port on a local address, never at `/_sim`,
// never at a denied block (link-local metadata by default), only inside the allowed blocks (profile). Decided
// at registration where the URL alone decides it, and again on every connection, on the address connected to.
import { isIP } from 'node:net';
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { bare, blocks, isLocal, type SelfEndpoint } from '../../network.ts';

/** Why a destination is refused, in a sentence for the 400 (or the delivery log); null when it is allowed. */
type Refusal = string | null;

const LOOPBACK_NAME = /^(?:.*\.)?localhost\.?$/i;

/** `/_sim`, however it is spelled in a path (case, percent-encoding, repeated slashes, dot segments the URL parser left). */
function reachesControlPlane(pathname: string): boolean {
  let p = pathname;
  try {
    p = decodeURIComponent(pathname);
  } catch {
    // Malformed escapes: judge the text as sent.
  }
  return /^\/+_sim(?![A-Za-z0-9_-])/i.test(p.replace(/\\/g, '/'));
}

export interface DestinationGuard {
  /** Registration: what the URL decides on its own (IP literals, localhost names, the path). */
  url(url: string): Refusal;
  /** A resolved address about to be connected to, on a port. */
  address(address: string, port: number): Refusal;
  /**
   * Resolves a host about to be connected to and checks every answer on that port; calls back with the one
   * address to connect to (so what is checked is what is dialled: no second lookup a rebinding DNS could answer).
   */
  resolve(hostname: string, port: number, callback: (err: Error | null, address?: string) => void): void;
}

const defaultPort = (u: URL): number => (u.port !== '' ? Number(u.port) : u.protocol === 'https:' ? 443 : 80);

export function destinationGuard(
  profile: { webhook_allowed_destinations: readonly string[]; webhook_denied_destinations: readonly string[] },
  self: SelfEndpoint,
  resolve: typeof dnsLookup = dnsLookup,
): DestinationGuard {
  const allowed = blocks(profile.webhook_allowed_destinations);
  const denied = blocks(profile.webhook_denied_destinations);
  const address = (addr: string, port: number): Refusal => {
    const a = bare(addr).split('%')[0];
    const family = isIP(a) === 6 ? 'ipv6' : 'ipv4';
    if (isIP(a) === 0) return `${addr} is not an IP address`;
    if (self.port !== null && port === self.port && isLocal(a, self.host)) return `${addr}:${port} is swapsim's own listening address`;
    if (denied.check(a, family)) return `${addr} is in a denied block (profile webhook_denied_destinations)`;
    if (!allowed.check(a, family)) return `${addr} is outside the allowed blocks (profile webhook_allowed_destinations)`;
    return null;
  };
  const guard: DestinationGuard = {
    url(url) {
      const u = new URL(url);
      if (reachesControlPlane(u.pathname)) return "the URL path is swapsim's control plane (/_sim)";
      const host = bare(u.hostname);
      const port = defaultPort(u);
      if (isIP(host) !== 0) return address(host, port);
      // RFC 6761: *.localhost names are loopback whatever a resolver says.
      if (LOOPBACK_NAME.test(host)) return address('127.0.0.1', port) ?? address('::1', port);
      return null;
    },
    address,
    resolve(hostname, port, callback) {
      const host = bare(hostname);
      const refuse = (why: string): void =>
        callback(Object.assign(new Error(`webhook destination refused: ${why}`), { code: 'ESWAPSIM_REFUSED' }));
      const check = (found: string[]): void => {
        for (const a of found) {
          const why = address(a, port);
          if (why) return refuse(why);
        }
        callback(null, found[0]);
      };
      if (isIP(host) !== 0) return check([host]);
      if (LOOPBACK_NAME.test(host)) return check(['127.0.0.1', '::1']);
      resolve(host, { all: true }, (err, found) => {
        if (err) return callback(err);
        const list = (found as LookupAddress[]).map((f) => f.address);
        if (list.length === 0) return callback(new Error(`${host} has no address`));
        check(list);
      });
    },
  };
  return guard;
}
