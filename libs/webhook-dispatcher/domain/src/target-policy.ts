import ipaddr from 'ipaddr.js';

export { callbackUrlProblem } from '@seed/webhook-dispatcher-contracts';

/**
 * Which addresses a webhook may be sent to: public unicast only. Loopback, private (10/8,
 * 172.16/12, 192.168/16), link-local (169.254/16 with the cloud metadata address 169.254.169.254,
 * fe80::/10), CGNAT (100.64/10), unique-local (fc00::/7), unspecified, broadcast, multicast,
 * reserved and documentation ranges, and IPv6 forms that embed an IPv4 address (6to4, Teredo,
 * NAT64, IPv4-compatible ::/96) are refused. An IPv4-mapped IPv6 address is judged as the IPv4 address it maps.
 * Returns why an address is refused, or null when it may be connected to.
 */
export function refusalOfAddress(address: string): string | null {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(address.replace(/^\[|\]$/g, '').replace(/%.*$/, ''));
  } catch {
    return `not an IP address: ${address}`;
  }
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  }
  const range = parsed.range();
  if (range !== 'unicast') return `${parsed.toString()} is a ${range} address`;
  // ::/96 (deprecated IPv4-compatible, e.g. ::7f00:1 for 127.0.0.1) is outside ipaddr.js's special
  // ranges; a host that tunnels it (sit) would reach the embedded IPv4 address unchecked.
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).parts.slice(0, 6).every((p) => p === 0)) {
    return `${parsed.toString()} is an ipv4Compatible address`;
  }
  return null;
}

export function isIpLiteral(host: string): boolean {
  return ipaddr.isValid(host.replace(/^\[|\]$/g, ''));
}

/** One exception of WEBHOOK_ALLOWED_HOSTS: a host name or address, on any port or on one. */
export interface AllowedHost {
  host: string;
  port: number | null;
}

/** Parses `host[:port],...` (IPv6 in brackets: `[::1]:8080`); throws on a malformed entry. */
export function parseAllowedHosts(spec: string): AllowedHost[] {
  return spec
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)
    .map((entry) => {
      const match = /^(\[[0-9a-fA-F:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/.exec(entry);
      if (!match?.[1]) throw new Error(`"${entry}" is not host[:port]`);
      const port = match[2] === undefined ? null : Number(match[2]);
      if (port !== null && (port < 1 || port > 65535)) throw new Error(`"${entry}" has an invalid port`);
      return { host: normaliseHost(match[1]), port };
    });
}

/** Whether the URL's host (and port) is one of the operator's exceptions: then no address check. */
export function isAllowedHost(allowed: readonly AllowedHost[], host: string, port: number): boolean {
  const h = normaliseHost(host);
  return allowed.some((a) => a.host === h && (a.port === null || a.port === port));
}

export function normaliseHost(host: string): string {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase().replace(/\.$/, '');
  // One spelling per address, so that `[0:0::1]` matches an allowed `[::1]`.
  return ipaddr.isValid(bare) ? ipaddr.parse(bare).toString() : bare;
}
