import { describe, expect, it } from 'vitest';
import { NETWORKS } from '../domain.ts';
import { networkSettings } from './network-settings.ts';
import { SETTINGS } from './setting-table.ts';

describe('networkSettings', () => {
  it.each(NETWORKS)('%s: each setting named after its network, in its key, variable and flag', (n) => {
    const settings = networkSettings(n);
    expect(settings.map((s) => s.key)).toContain(`${n}.rpcUrl`);
    for (const s of settings) {
      expect(s.key.startsWith(`${n}.`), s.key).toBe(true);
      expect(s.env.startsWith(`CV_${n.toUpperCase()}_`), s.env).toBe(true);
      expect(s.flag.startsWith(`--${n}-`), s.flag).toBe(true);
    }
  });

  it("is in the table of every setting, each network's group whole", () => {
    for (const n of NETWORKS) expect(SETTINGS).toEqual(expect.arrayContaining(networkSettings(n)));
    expect(new Set(SETTINGS.map((s) => s.env)).size).toBe(SETTINGS.length);
  });
});
