import { describe, expect, it } from 'vitest';
import { clientKey } from './client-key.ts';

describe('clientKey', () => {
  it.each([
    { given: '203.0.113.7', prefix: 64, want: '203.0.113.7' },
    // IPv4-mapped IPv6 (RFC 4291 §2.5.5.2), in its three spellings, is the IPv4 address.
    { given: '::ffff:10.77.0.1', prefix: 64, want: '10.77.0.1' },
    { given: '::ffff:a4d:1', prefix: 64, want: '10.77.0.1' },
    { given: '0:0:0:0:0:ffff:10.77.0.1', prefix: 64, want: '10.77.0.1' },
    // Every address of one /64 is one client; the next /64 another.
    { given: '2001:db8:1:2::1', prefix: 64, want: '2001:db8:1:2::/64' },
    { given: '2001:db8:1:2:ffff:ffff:ffff:ffff', prefix: 64, want: '2001:db8:1:2::/64' },
    { given: '2001:DB8:1:2:a:b:c:d', prefix: 64, want: '2001:db8:1:2::/64' },
    { given: '2001:db8:1:3::1', prefix: 64, want: '2001:db8:1:3::/64' },
    { given: 'fe80::1%eth0', prefix: 64, want: 'fe80::/64' },
    // The prefix is a setting.
    { given: '2001:db8:1:2::1', prefix: 48, want: '2001:db8:1::/48' },
    { given: '2001:db8:1:2::1', prefix: 128, want: '2001:db8:1:2::1/128' },
    // Not an address (a closed socket has none): as it is.
    { given: 'unknown', prefix: 64, want: 'unknown' },
    { given: '1.2.3', prefix: 64, want: '1.2.3' },
  ])('$given /$prefix → $want', ({ given, prefix, want }) => {
    expect(clientKey(given, prefix)).toBe(want);
  });
});
