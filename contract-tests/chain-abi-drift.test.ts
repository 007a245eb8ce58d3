// The contracts' interface, written down in docs/chain-abi.md (the repository's record of it), against the
// two pieces of code that must follow it: the simulator's contracts (what the chain answers) and
// src/chain's typed calls (what the service asks). A function renamed, an argument added or an error
// renumbered on either side without the document fails here.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Address, Contract, Keypair, StrKey, xdr } from '@stellar/stellar-sdk';
import { describe, expect, it } from 'vitest';
import { FactoryError, RegistryError, VaultError, factory, registry, vault } from '../simulator/contracts/index.ts';
import { TTL_SETTINGS } from '../simulator/core/ledger.ts';
import { PROTOCOL_28_TTL } from '../src/chain/ttl.ts';
import { stellarAssetContract } from '../simulator/core/sac.ts';
import type { ContractImpl } from '../simulator/host.ts';
import { toStr } from '../src/chain/codec.ts';
import { FACTORY_ERRORS, REGISTRY_ERRORS, VAULT_ERRORS } from '../src/chain/errors.ts';
import { createFactoryApi } from '../src/chain/factory.ts';
import { createRegistryApi, recordKey } from '../src/chain/registry.ts';
import { createTokenApi } from '../src/chain/token.ts';
import type { ChainClient, PrepareRequest, ReadRequest } from '../src/chain/types.ts';
import { createVaultApi } from '../src/chain/vault.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const DOC = readFileSync(path.join(ROOT, 'docs/chain-abi.md'), 'utf8');

type Kind = 'factory' | 'vault' | 'registry' | 'token';
const SECTION_TITLES: Record<Kind, RegExp> = {
  factory: /^Factory\b/,
  vault: /^Vault \(/,
  registry: /^DID registry\b/,
  token: /^Fee tokens\b/,
};

function section(kind: Kind): string {
  const found = DOC.split(/^## /m).find((s) => SECTION_TITLES[kind].test(s));
  if (!found) throw new Error(`docs/chain-abi.md has no "${SECTION_TITLES[kind].source}" section`);
  return found;
}

/** Argument count of the text between a signature's parentheses (commas inside <…> or (…) do not count). */
function arity(inner: string): number {
  if (inner.trim() === '') return 0;
  let depth = 0;
  let n = 1;
  for (const ch of inner) {
    if (ch === '<' || ch === '(') depth++;
    else if (ch === '>' || ch === ')') depth--;
    else if (ch === ',' && depth === 0) n++;
  }
  return n;
}

/** Every `name(args…)` in backticks of the section's table rows and bullets: name → argument count. */
function documentedFunctions(kind: Kind): Map<string, number> {
  const fns = new Map<string, number>();
  for (const line of section(kind).split('\n')) {
    if (!/^\s*[|-]/.test(line)) continue;
    // In a table only the first cell names functions; the notes cell mentions calls made inside.
    const text = line.trimStart().startsWith('|') ? (line.split('|')[1] ?? '') : line;
    for (const m of text.matchAll(/`([a-z_][a-z0-9_]*)\(/g)) {
      let depth = 1;
      let i = m.index + m[0].length;
      const start = i;
      for (; i < text.length && depth > 0; i++) {
        if (text[i] === '(') depth++;
        else if (text[i] === ')') depth--;
      }
      fns.set(m[1]!, arity(text.slice(start, i - 1)));
    }
  }
  return fns;
}

/** The section's "Errors: 1 Name, 2 Name, …" list: number → name. */
function documentedErrors(kind: Kind): Map<number, string> {
  const s = section(kind);
  const at = s.indexOf('Errors:');
  if (at < 0) throw new Error(`no Errors: list in the ${kind} section`);
  const list = s.slice(at + 'Errors:'.length, s.indexOf('.\n', at));
  return new Map([...list.matchAll(/(\d+) ([A-Za-z]+)/g)].map((m) => [Number(m[1]), m[2]!]));
}

/** Functions the simulator exports beyond the document, each with the reason it may. */
const UNDOCUMENTED: Partial<Record<Kind, Record<string, string>>> = {
  // push's "dest … checks": the source vault calls the destination, which asks the factory is_vault(source).
  vault: { receive_push: 'the destination side of push, called by the source vault only' },
  // A real SAC has more (approve, burn, …): the simulator has what the service and its tests use.
  token: {
    mint: 'the issuer mints USDC in tests',
    decimals: 'SAC metadata',
    name: 'SAC metadata',
    symbol: 'SAC metadata',
    admin: 'SAC metadata',
  },
};

const SIMULATOR: Record<Kind, ContractImpl> = { factory, vault, registry, token: stellarAssetContract };

describe.each<Kind>(['factory', 'vault', 'registry', 'token'])('%s: simulator against docs/chain-abi.md', (kind) => {
  const documented = documentedFunctions(kind);
  const implemented = SIMULATOR[kind].functions!;

  it('the document names functions (the parser found them)', () => {
    expect(documented.size).toBeGreaterThanOrEqual(kind === 'token' ? 2 : 5);
  });

  it.each([...documented])('%s takes %i arguments in the simulator', (fn, n) => {
    expect(implemented.get(fn), `${fn} is missing from the simulator's ${kind}`).toBe(n);
  });

  it('exports nothing the document does not name, except the listed extras', () => {
    const extra = [...implemented.keys()].filter((fn) => !documented.has(fn)).sort();
    expect(extra).toEqual(Object.keys(UNDOCUMENTED[kind] ?? {}).sort());
  });
});

describe.each([
  { kind: 'factory' as const, sim: FactoryError, service: FACTORY_ERRORS },
  { kind: 'vault' as const, sim: VaultError, service: VAULT_ERRORS },
  { kind: 'registry' as const, sim: RegistryError, service: REGISTRY_ERRORS },
])('$kind errors', ({ kind, sim, service }) => {
  const documented = documentedErrors(kind);

  it('the simulator numbers them as the document does', () => {
    expect(new Map(Object.entries(sim).map(([name, n]) => [n, name]))).toEqual(documented);
  });

  it('src/chain maps only documented numbers', () => {
    const unknown = Object.keys(service)
      .map(Number)
      .filter((n) => !documented.has(n));
    expect(unknown).toEqual([]);
  });
});

describe('src/chain calls only documented functions, with the documented argument counts', () => {
  const calls: { contract: string; fn: string; args: number }[] = [];
  const record = (req: PrepareRequest | ReadRequest) =>
    void calls.push({ contract: req.contract ?? '?', fn: req.fn, args: req.args?.length ?? 0 });
  const client = {
    prepare: async (req: PrepareRequest) => (record(req), { xdr: '', network: 'testnet' }),
    read: async (req: ReadRequest) => {
      record(req);
      throw new Error('recorded');
    },
  } as unknown as ChainClient;
  const G = 'GCFIRY65OQE7DFP5KLNS2PF2LVZMUZYJX4OZIEQ36N2IQANUB5XVYOJR';
  const C = 'CABAEAQCAIBAEAQCAIBAEAQCAIBAEAQCAIBAEAQCAIBAEAQCAIBAFNSZ';
  const didId = new Uint8Array(16);
  const rec = { controller: G, authentication: [], assertionMethod: [], keyAgreement: [], services: [] };
  const any = {
    source: G,
    vault: C,
    vcId: 'vc-1',
    vcData: 'data',
    issuer: G,
    issuerDid: 'did:ledger:testnet:x',
    vcs: [{ vcId: 'a', vcData: 'b' }],
    date: '2026-01-01',
    didUri: 'did:ledger:testnet:x',
    newAdmin: G,
    destVault: C,
    offset: 0,
    limit: 10,
    owner: G,
    deployer: G,
    amount: 1n,
    expiresAt: undefined,
    didId,
    record: rec,
    expectedVersion: 1,
    newController: G,
  };
  // Methods that take something other than the options object, and methods that are not contract calls.
  const argsOf: Record<string, unknown[]> = { isVault: [C], quoteFee: [G], getAdmin: [], balance: [C, G] };
  // Ledger-entry reads, not contract calls: the registry's record (its key is checked below), a vault's instance, and
  // the vault's keys a TTL extension names (checked below).
  const notCalls = new Set(['get', 'exists', 'ttlState']);
  const apis = {
    vault: createVaultApi(client),
    factory: createFactoryApi(client, { factoryId: C }),
    registry: createRegistryApi(client, { registryId: C }),
    token: createTokenApi(client),
  };

  it('every typed function invokes a documented function with its arity', async () => {
    for (const [kind, api] of Object.entries(apis)) {
      for (const [name, fn] of Object.entries(api as unknown as Record<string, unknown>)) {
        if (typeof fn !== 'function' || notCalls.has(name)) continue;
        const before = calls.length;
        await (fn as (...a: unknown[]) => Promise<unknown>)(...(argsOf[name] ?? [any])).catch(() => undefined);
        expect(calls.length, `${kind}.${name} made no contract call`).toBe(before + 1);
        const call = calls.at(-1)!;
        expect(call.contract).toBe(kind);
        const documented = documentedFunctions(kind as Kind);
        expect(documented.get(call.fn), `${kind}.${name} calls ${call.fn}, which docs/chain-abi.md does not name`).toBe(
          call.args,
        );
      }
    }
    expect(calls.length).toBeGreaterThan(20);
  });

  it('the registry reads the documented storage key ScVec[Symbol("Record"), Bytes(did_id)]', () => {
    expect(section('registry')).toContain('Storage key: `ScVec[Symbol("Record"), Bytes(did_id)]`');
    const want = xdr.ScVal.scvVec([xdr.ScVal.scvSymbol('Record'), xdr.ScVal.scvBytes(Buffer.from(didId))]);
    expect(recordKey(didId).toXdr('base64')).toBe(want.toXdr('base64'));
  });
});

describe("a vault's state, as a TTL extension names it", () => {
  // The interface documents functions, not storage: the keys come from the simulations of documented reads.
  const C = 'CABAEAQCAIBAEAQCAIBAEAQCAIBAEAQCAIBAEAQCAIBAEAQCAIBAFNSZ';
  const OTHER = StrKey.encodeContract(Buffer.alloc(32, 3));
  const dataKey = (contract: string, key: xdr.ScVal) =>
    xdr.LedgerKey.contractData(
      new xdr.LedgerKeyContractData({
        contract: new Address(contract).toScAddress(),
        key,
        durability: xdr.ContractDataDurability.persistent,
      }),
    );
  // a layout no copy of the simulator's would build
  const odd = (tag: string, id: string) =>
    dataKey(C, xdr.ScVal.scvVec([xdr.ScVal.scvU32(7), xdr.ScVal.scvString(`${tag}:${id}`)]));
  const instance = new Contract(C).getFootprint();

  it('is the instance and the vault contract data the simulations of documented reads name, nothing built', async () => {
    const simulated: { fn: string; args: number }[] = [];
    const asked: string[] = [];
    const client = {
      readFootprint: async (req: ReadRequest) => {
        simulated.push({ fn: req.fn, args: req.args.length });
        const id = toStr(req.args[0]!);
        const keys =
          req.fn === 'get_vc'
            ? [instance, odd('data', id), dataKey(OTHER, xdr.ScVal.scvString(id))]
            : [
                odd('state', id),
                instance,
                xdr.LedgerKey.account(new xdr.LedgerKeyAccount({ accountId: Keypair.random().xdrAccountId() })),
              ];
        return { value: xdr.ScVal.scvString(id), keys };
      },
      getLedgerEntries: async (keys: xdr.LedgerKey[]) => {
        asked.push(...keys.filter((k) => k.type === 'contractData').map((k) => k.toXdr('base64')));
        const entries = keys
          .filter((k) => k.type === 'contractData')
          .map((key) => ({ key, val: { type: 'contractData' }, liveUntilLedgerSeq: 10 }));
        return { entries, latestLedger: 1 };
      },
    } as unknown as ChainClient;
    const state = await createVaultApi(client).ttlState({ vault: C, vcIds: ['vc-1', 'vc-2'] });
    const documented = documentedFunctions('vault');
    for (const s of simulated) expect(documented.get(s.fn), `${s.fn} is not a documented function`).toBe(s.args);
    expect(new Set(simulated.map((s) => s.fn))).toEqual(new Set(['get_vc', 'verify_vc']));
    const want = [instance, odd('data', 'vc-1'), odd('state', 'vc-1'), odd('data', 'vc-2'), odd('state', 'vc-2')].map(
      (k) => k.toXdr('base64'),
    );
    expect(state.keys.map((k) => k.toXdr('base64'))).toEqual(want);
    expect(new Set(asked)).toEqual(new Set(want));
    expect(state.missing).toEqual([]);
  });

  it("docs/chain-abi.md says the service takes the keys from simulation, and calls the VC/Status layout the simulator's", () => {
    const vaultSection = section('vault');
    expect(vaultSection).toContain('footprints of simulated `get_vc` and `verify_vc` calls');
    expect(vaultSection).toContain("The simulator's vault stores");
  });
});

// docs/chain-abi.md is the repository's record of the interface (no copy outside it is compared), except the state
// archival figures, which the user docs repeat.
describe('docs/chain-abi.md', () => {
  it('names the release line the simulator implements', () => {
    expect(DOC).toContain('vault template 0.4.0, factory 0.1.0');
    expect(DOC).toContain('DID registry 0.2.0');
    expect([factory.name, vault.name, registry.name]).toEqual([
      'vc-vault-factory 0.1.0',
      'vc-vault 0.4.0',
      'did-registry 0.2.0',
    ]);
  });

  it("names the simulator's default state archival settings (TTL_SETTINGS), as do the simulator's README and docs/vault-api.md", () => {
    const figure = (text: string, pattern: RegExp, where: string): number => {
      const m = pattern.exec(text);
      if (!m) throw new Error(`${where}: no match for ${pattern.source}`);
      return Number(m[1]!.replaceAll(',', ''));
    };
    const archival = DOC.split(/^## /m).find((s) => s.startsWith('State archival'))!;
    expect({
      minPersistentTTL: figure(archival, /`minPersistentTTL` ([\d,]+) ledgers/, 'chain-abi.md'),
      minTemporaryTTL: figure(archival, /`minTemporaryTTL` ([\d,]+)/, 'chain-abi.md'),
      maxEntryTTL: figure(archival, /`maxEntryTTL` ([\d,]+)/, 'chain-abi.md'),
    }).toEqual(TTL_SETTINGS);
    const readme = readFileSync(path.join(ROOT, 'simulator/README.md'), 'utf8');
    expect({
      minPersistentTTL: figure(readme, /minimum persistent TTL ([\d,]+) ledgers/, 'simulator/README.md'),
      minTemporaryTTL: figure(readme, /temporary ([\d,]+), maximum/, 'simulator/README.md'),
      maxEntryTTL: figure(readme, /maximum ([\d,]+);/, 'simulator/README.md'),
    }).toEqual(TTL_SETTINGS);
    const vaultApi = readFileSync(path.join(ROOT, 'docs/vault-api.md'), 'utf8');
    expect({
      minPersistentTTL: figure(vaultApi, /minimum persistent TTL from its issue:\s+([\d,]+) ledgers/, 'vault-api.md'),
      maxEntryTTL: figure(vaultApi, /at most ([\d,]+) ledgers/, 'vault-api.md'),
    }).toEqual({ minPersistentTTL: TTL_SETTINGS.minPersistentTTL, maxEntryTTL: TTL_SETTINGS.maxEntryTTL });
    // The service's own fallback, for an RPC that does not answer the network's settings: the same Protocol 28 figures.
    expect(PROTOCOL_28_TTL).toEqual(TTL_SETTINGS);
  });
});
