// The vault's active-credential index (OrderedIndex in support.ts): issuance order, pages by offset, removals by
// revoke and push, and a cost that does not grow with the number of credentials.
import { beforeAll, describe, expect, it } from 'vitest';
import { scValToNative } from '@stellar/stellar-sdk';
import { address, bool, bytes, str, u32 } from '../../src/chain/codec.ts';
import { factory } from './factory.ts';
import { VAULT_WASM_HASH } from './index.ts';
import { TestHost, account } from './test-host.ts';

const admin = account(1);
const owner = account(2);
const issuer = account(5);

function setup(): { host: TestHost; v: string; w: string } {
  const host = new TestHost();
  const f = host.register(factory, [address(admin), bytes(VAULT_WASM_HASH)]);
  host.invoke(f, 'set_fee_enabled', [bool(false)], [admin]);
  const deploy = (salt: number) =>
    scValToNative(
      host.invoke(f, 'deploy', [address(owner), str('d'), bytes(Buffer.alloc(32, salt))], [owner]),
    ) as string;
  return { host, v: deploy(0), w: deploy(1) };
}

function ops(host: TestHost, v: string) {
  return {
    issue: (id: string) =>
      host.invoke(v, 'issue', [str(id), str('x'), address(v), address(issuer), str('did')], [issuer]),
    revoke: (id: string) => host.invoke(v, 'revoke', [str(id), str('d')], [owner]),
    push: (id: string, to: string) => host.invoke(v, 'push', [str(id), address(to)], [owner]),
    page: (offset: number, limit: number) =>
      scValToNative(host.invoke(v, 'list_vc_ids', [u32(offset), u32(limit)])) as string[],
    count: () => scValToNative(host.invoke(v, 'vc_count', [])) as number,
  };
}

/** Deterministic PRNG (mulberry32), so a failure replays. */
function rng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('pages over 500 credentials with removals at the head, middle and tail', () => {
  const { host, v, w } = setup();
  const vault = ops(host, v);
  const model = Array.from({ length: 500 }, (_, i) => `vc-${i}`);
  beforeAll(() => {
    for (const id of model) vault.issue(id);
    for (const id of ['vc-0', 'vc-1', 'vc-250', 'vc-499', 'vc-498', 'vc-128', 'vc-256']) {
      if (id.endsWith('8')) vault.push(id, w);
      else vault.revoke(id);
      model.splice(model.indexOf(id), 1);
    }
    vault.issue('late');
    model.push('late');
  });
  it.each([
    { offset: 0, limit: 10 },
    { offset: 0, limit: 200 },
    { offset: 120, limit: 20 },
    { offset: 240, limit: 20 },
    { offset: 480, limit: 200 },
    { offset: model.length - 1, limit: 5 },
    { offset: model.length, limit: 5 },
    { offset: 10_000, limit: 5 },
    { offset: 3, limit: 0 },
  ])('offset $offset limit $limit', ({ offset, limit }) => {
    expect(vault.page(offset, limit)).toEqual(model.slice(offset, offset + limit));
  });
  it('count and a full walk agree with the model', () => {
    expect(vault.count()).toBe(model.length);
    const all: string[] = [];
    for (let o = 0; o < vault.count(); o += 37) all.push(...vault.page(o, 37));
    expect(all).toEqual(model);
  });
});

describe.each([{ seed: 1 }, { seed: 2 }, { seed: 3 }])(
  'random issue / revoke / push sequences (seed $seed)',
  ({ seed }) => {
    it('every page equals the model after every step', () => {
      const { host, v, w } = setup();
      const vault = ops(host, v);
      const random = rng(seed);
      const model: string[] = [];
      let next = 0;
      for (let step = 0; step < 300; step++) {
        const r = random();
        if (r < 0.6 || model.length === 0) {
          const id = `vc-${next++}`;
          vault.issue(id);
          model.push(id);
        } else {
          const id = model[Math.floor(random() * model.length)]!;
          if (r < 0.85) vault.revoke(id);
          else vault.push(id, w);
          model.splice(model.indexOf(id), 1);
        }
        const offset = Math.floor(random() * (model.length + 2));
        const limit = Math.floor(random() * 12);
        expect(vault.page(offset, limit)).toEqual(model.slice(offset, offset + limit));
        expect(vault.count()).toBe(model.length);
      }
    });
  },
);

/** A vault of 10,000 credentials, every tenth revoked, and a count of the entries `run` reads. */
function tenThousand() {
  const { host, v } = setup();
  const vault = ops(host, v);
  const reads = (run: () => unknown): number => {
    const before = host.reads;
    run();
    return host.reads - before;
  };
  beforeAll(() => {
    for (let i = 0; i < 10_000; i++) vault.issue(`vc-${i}`);
    for (let i = 0; i < 10_000; i += 10) vault.revoke(`vc-${i}`);
  });
  return { host, v, vault, reads };
}

describe('cost stays flat: 10,000 credentials', () => {
  const { host, v, vault, reads } = tenThousand();
  it('holds 9,000 active in issuance order', () => {
    expect(vault.count()).toBe(9_000);
    const active = Array.from({ length: 10_000 }, (_, i) => i)
      .filter((i) => i % 10 !== 0)
      .map((i) => `vc-${i}`);
    for (const offset of [0, 1, 4_321, 8_990])
      expect(vault.page(offset, 200)).toEqual(active.slice(offset, offset + 200));
  });
  it.each([
    { name: 'verify_vc', run: () => host.invoke(v, 'verify_vc', [str('vc-5000')]), max: 1 },
    { name: 'a page of 10 deep in the list', run: () => vault.page(8_000, 10), max: 3 + 14 + 2 * 10 },
    { name: 'a page of 200', run: () => vault.page(4_000, 200), max: 3 + 14 + 2 * 200 },
  ])('$name reads at most $max entries', ({ run, max }) => {
    expect(reads(run)).toBeLessThanOrEqual(max);
  });
});

// The writes on a vault of their own: the reads above see the 10,000 as issued.
describe('cost stays flat: writes among 10,000 credentials', () => {
  const { vault, reads } = tenThousand();
  it.each([
    { name: 'issue (fees off)', run: () => vault.issue('new-1'), max: 40 },
    { name: 'revoke', run: () => vault.revoke('vc-5001'), max: 80 },
  ])('$name reads at most $max entries', ({ run, max }) => {
    expect(reads(run)).toBeLessThanOrEqual(max);
  });
});
