// The key of a per-client limit: one client is one IPv4 address, or one IPv6 network. An IPv6 host is given a
// whole /64 (RFC 6177, RFC 7934: SLAAC and privacy addresses pick any interface id in it), so keying by the full
// address would give one client 2^64 budgets; the prefix is a setting (CV_IPV6_CLIENT_PREFIX) for networks that
// hand out longer or shorter ones. An IPv4-mapped IPv6 address (::ffff:10.0.0.1, RFC 4291 §2.5.5.2: how a
// dual-stack socket reports an IPv4 peer) is that IPv4 address, so both spellings share one budget.
import ipaddr from 'ipaddr.js';

/** The default IPv6 prefix length of one client (RFC 6177's /64 per subnet). */
export const DEFAULT_IPV6_CLIENT_PREFIX = 64;

/**
 * `10.0.0.1` for an IPv4 address (mapped or not), `2001:db8:1:2::/64` for an IPv6 one (its network at
 * `ipv6Prefix` bits, zone id dropped); anything else (no address: a socket already closed) as it is.
 */
export function clientKey(address: string, ipv6Prefix: number = DEFAULT_IPV6_CLIENT_PREFIX): string {
  const bare = address.replace(/%.*$/, '');
  if (!ipaddr.IPv6.isValid(bare) && !ipaddr.IPv4.isValidFourPartDecimal(bare)) return address;
  const ip = ipaddr.process(bare);
  if (ip.kind() === 'ipv4') return ip.toString();
  return `${ipaddr.IPv6.networkAddressFromCIDR(`${bare}/${ipv6Prefix}`).toString()}/${ipv6Prefix}`;
}
