import { describe, expect, it } from 'vitest';
import { storeLines, storeLocations } from './store-locations.ts';

const base = { dataDir: '/srv/cv', redisKeyPrefix: 'credential-vault:' };

describe('storeLocations: where each store is, credentials removed', () => {
  it.each([
    {
      given: base,
      want: ['SQLite /srv/cv/credential-vault.db', 'memory of this process'],
    },
    {
      given: {
        ...base,
        databaseUrl: 'postgres://cv:s3cret@db.internal:5432/cv?sslmode=require',
        databaseSchema: 'tenant_a',
        redisUrl: 'redis://:pw@cache.internal:6379/2',
      },
      want: [
        'PostgreSQL postgres://db.internal:5432/cv (schema tenant_a)',
        'Redis redis://cache.internal:6379/2 (key prefix credential-vault:)',
      ],
    },
  ])('$want', ({ given, want }) => {
    const at = storeLocations(given);
    expect([at.keys, at.rate_limit]).toEqual(want);
    expect([at.idempotency, at.cache]).toEqual(want);
    expect(JSON.stringify(at)).not.toMatch(/s3cret|pw@/);
  });

  it('the banner names every store a mode uses', () => {
    expect(storeLines(base, true)).toEqual([
      'keys, idempotency SQLite /srv/cv/credential-vault.db',
      'rate limits, cache memory of this process',
    ]);
    expect(storeLines(base, false)).toEqual(['rate limits, cache memory of this process']);
  });
});
