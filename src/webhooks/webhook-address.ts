import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { boundedMemo } from '../common/bounded-memo';

/**
 * Where a webhook may be delivered (contract 14, "URLs"; docs/events.md, "Webhooks"): `https`
 * only, and only to public addresses, checked after DNS resolution on POST/PATCH and whenever an
 * attempt opens a connection: the attempts' connector (webhook-sender.ts) resolves the name, checks
 * every address and connects to the very address it checked, so a resolver that answers
 * differently the second time (DNS rebinding) cannot swap it.
 */

/** A name's addresses, as `dns.lookup(name, { all: true })` gives them; injectable for tests. */
export type Resolver = (hostname: string) => Promise<{ address: string; family: 4 | 6 }[]>;

/**
 * One lookup of a name at a time: connections that open while a lookup of their name is under way
 * share its answer, and the next one after it ends looks up again (nothing is cached). A burst of
 * connections to one receiver is then one getaddrinfo, not one each queued on libuv's four
 * threads; every connection is still checked against an answer that was not yet known when the
 * previous lookup ended.
 */
export function sharingLookups(resolver: Resolver): Resolver {
  const underWay = new Map<string, Promise<{ address: string; family: 4 | 6 }[]>>();
  return (hostname) => {
    let answer = underWay.get(hostname);
    if (!answer) {
      answer = resolver(hostname).finally(() => underWay.delete(hostname));
      underWay.set(hostname, answer);
    }
    return answer;
  };
}

export const systemResolver: Resolver = sharingLookups(async (hostname) =>
  (await lookup(hostname, { all: true, verbatim: true })).map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 })),
);

/** Every range that is not a public unicast address (IANA special-purpose registries). */
// Two lists: node's BlockList also matches IPv4 addresses against IPv6 rules (as IPv4-mapped).
const NON_PUBLIC_V4 = new BlockList();
const NON_PUBLIC_V6 = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], // "this network", unspecified
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local (cloud metadata 169.254.169.254)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation TEST-NET-1
  ['192.31.196.0', 24], // AS112
  ['192.52.193.0', 24], // AMT
  ['192.88.99.0', 24], // 6to4 relay anycast (deprecated)
  ['192.168.0.0', 16], // private
  ['192.175.48.0', 24], // AS112
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation TEST-NET-2
  ['203.0.113.0', 24], // documentation TEST-NET-3
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, and 255.255.255.255 broadcast
] as const) {
  NON_PUBLIC_V4.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['::', 96], // IPv4-compatible (deprecated)
  ['::ffff:0:0', 96], // IPv4-mapped: refused whatever IPv4 address it carries
  ['64:ff9b::', 96], // NAT64 well-known prefix
  ['64:ff9b:1::', 48], // local-use NAT64
  ['100::', 64], // discard-only
  ['2001::', 23], // IETF protocol assignments (Teredo, benchmarking, ORCHID...)
  ['2001:db8::', 32], // documentation
  ['2002::', 16], // 6to4
  ['3fff::', 20], // documentation
  ['5f00::', 16], // SRv6 SIDs
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
] as const) {
  NON_PUBLIC_V6.addSubnet(net, prefix, 'ipv6');
}

/** True for a public unicast address, false for anything else (also for what is not an address). */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return !NON_PUBLIC_V4.check(address, 'ipv4');
  if (family === 6) {
    // Only the global unicast block 2000::/3 is public at all.
    const first = parseInt(address.split(':')[0] || '0', 16);
    if (!(first >= 0x2000 && first <= 0x3fff)) return false;
    return !NON_PUBLIC_V6.check(address, 'ipv6');
  }
  return false;
}

/** A URL that may be delivered to, and the one address the attempt connects to. */
export interface CheckedTarget {
  url: URL;
  /** The name TLS verifies the certificate against: the URL's host, or null for http and an IP-literal host. */
  servername: string | null;
  address: string;
  family: 4 | 6;
}

export class TargetRefused extends Error {}

export interface TargetPolicy {
  /** WEBHOOK_ALLOW_INSECURE: `http` and non-public addresses allowed (development, tests). */
  allowInsecure: boolean;
  resolve: Resolver;
}

/**
 * Each webhook URL parsed once (every attempt of a webhook checks the same string): syntax only,
 * the same answer every time. No address is kept: the host is resolved and checked again for every
 * connection.
 */
const parsed = boundedMemo(1000, (value: string): { url: URL; host: string; literal: number } | null => {
  try {
    const url = new URL(value);
    const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
    return { url, host, literal: isIP(host) };
  } catch {
    return null;
  }
});

/** A port written in the authority, when the URL parser refuses it (out of range). */
const WRITTEN_PORT = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*:(\d+)(?:[/?#]|$)/i;

/** The URL's syntax alone (no DNS): a message saying what is wrong, or null. */
export function urlProblem(value: string, allowInsecure: boolean): string | null {
  const url = parsed(value)?.url;
  if (!url) {
    const port = WRITTEN_PORT.exec(value)?.[1];
    return port !== undefined && Number(port) > 65535 ? PORT_PROBLEM : 'url must be an absolute URL';
  }
  if (url.protocol !== 'https:' && !(allowInsecure && url.protocol === 'http:')) return 'url must be an https URL';
  if (url.username || url.password) return 'url must not carry a user name or password';
  // The parser keeps port 0 (it refuses only ports above 65535); nothing can be reached there.
  if (url.port === '0') return PORT_PROBLEM;
  if (value.length > 2048) return 'url must be at most 2048 characters';
  return null;
}

const PORT_PROBLEM = 'url port must be from 1 to 65535';

/**
 * Checks the URL (syntax, then its host as the connector does: checkedAddress) and gives the
 * address a connection would be opened to. POST and PATCH use it to refuse a URL at once. Throws
 * TargetRefused saying why.
 */
export async function checkTarget(value: string, policy: TargetPolicy): Promise<CheckedTarget> {
  const problem = urlProblem(value, policy.allowInsecure);
  if (problem) throw new TargetRefused(problem);
  const { url, host, literal } = parsed(value)!;
  const checked = await checkedAddress(host, policy);
  return { url, servername: url.protocol === 'https:' && !literal ? host : null, ...checked };
}

/**
 * The address a connection to `host` (a name, or an IP literal without brackets) may be opened
 * to: a name is resolved and every address it resolves to is checked (one non-public answer
 * refuses it: a resolver may hand any of them to a connection); the first is given. Throws
 * TargetRefused saying why.
 */
export async function checkedAddress(host: string, policy: TargetPolicy): Promise<{ address: string; family: 4 | 6 }> {
  const literal = isIP(host);
  let addresses: { address: string; family: 4 | 6 }[];
  if (literal) {
    addresses = [{ address: host, family: literal === 6 ? 6 : 4 }];
  } else {
    try {
      addresses = await policy.resolve(host);
    } catch {
      throw new TargetRefused('url host does not resolve');
    }
  }
  if (addresses.length === 0) throw new TargetRefused('url host does not resolve');
  if (!policy.allowInsecure && addresses.some(({ address }) => !isPublicAddress(address))) {
    throw new TargetRefused('url host resolves to a non-public address');
  }
  return addresses[0];
}
