// Network facts below every resource: where the server itself listens, CIDR blocks as the profile writes them,
// and which addresses reach this machine. The webhook destination guard (resources/webhooks/destinations.ts)
// decides with them; the world, the runtime and the profile schema name them without reaching into a resource.
import { BlockList, isIP } from 'node:net';
import { networkInterfaces } from 'node:os';

/** The server's own listening endpoint (filled in by server.ts once it listens; null in an in-process world). */
export interface SelfEndpoint {
  host: string | null;
  port: number | null;
}

/** A host as written in a URL (`[::1]`) without its brackets. */
export const bare = (hostname: string): string => (hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname);

/** The CIDR blocks (or bare addresses) as one list to check addresses against. */
export function blocks(cidrs: readonly string[]): BlockList {
  const list = new BlockList();
  for (const cidr of cidrs) {
    const [address, bits] = cidr.split('/');
    const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    list.addSubnet(address, Number(bits ?? (family === 'ipv6' ? 128 : 32)), family);
  }
  return list;
}

/** A CIDR block as the profile accepts it (`10.0.0.0/8`, `::1/128`, a bare address). */
export function isCidr(text: string): boolean {
  const [address, bits, ...rest] = text.split('/');
  const v = isIP(address ?? '');
  if (v === 0 || rest.length > 0) return false;
  if (bits === undefined) return true;
  return /^[0-9]{1,3}$/.test(bits) && Number(bits) <= (v === 6 ? 128 : 32);
}

/** Addresses that reach this machine: loopback, unspecified, and every interface's own address. */
const LOCAL = blocks(['127.0.0.0/8', '0.0.0.0/8', '::1/128', '::/128']);

/** Whether `address` reaches this machine (or is `selfHost`, where the server listens). */
export function isLocal(address: string, selfHost: string | null): boolean {
  const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
  if (LOCAL.check(address, family)) return true;
  if (selfHost !== null && bare(selfHost) === address) return true;
  for (const list of Object.values(networkInterfaces())) {
    for (const i of list ?? []) if (i.address === address || (family === 'ipv6' && i.address.split('%')[0] === address)) return true;
  }
  return false;
}
