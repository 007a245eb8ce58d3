// The key of a per-client limit: an IPv4 address, or an IPv6 network (a host is given a whole /64, RFC 6177, and
// picks any address in it, RFC 7934). An IPv4-mapped address (RFC 4291 §2.5.5.2) is its IPv4 address.
import ipaddr from 'ipaddr.js';

export const DEFAULT_IPV6_CLIENT_PREFIX = 64;

/** `10.0.0.1`, `2001:db8:1:2::/64` (zone id dropped); anything else (a socket already closed) as it is. */
export function clientKey(address: string, ipv6Prefix: number = DEFAULT_IPV6_CLIENT_PREFIX): string {
  const bare = address.replace(/%.*$/, '');
  if (!ipaddr.IPv6.isValid(bare) && !ipaddr.IPv4.isValidFourPartDecimal(bare)) return address;
  const ip = ipaddr.process(bare);
  if (ip.kind() === 'ipv4') return ip.toString();
  return `${ipaddr.IPv6.networkAddressFromCIDR(`${bare}/${ipv6Prefix}`).toString()}/${ipv6Prefix}`;
}
