// The services' negative corpus, as requests to send to a service and to its Prism mock: the bad-input
// mutations of property-tests/http (spec-derived and hostile, one sample of each kind on each operation, with
// a fixed seed) and the Pact negatives (the committed pacts' interactions answered with a 4xx).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { hostileKinds } from '../../property-tests/http/hostile-mutations.ts';
import { mutationKinds, type Keys, type RawRequest } from '../../property-tests/http/mutations.ts';
import { loadSpec, send, type Answer, type ApiName } from '../../property-tests/http/spec.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** One negative request and where it comes from. */
export interface Probe {
  readonly source: 'fuzz' | 'pact' | 'adversarial';
  /** One line naming the request: the operation and the mutation, or the interaction. */
  readonly name: string;
  /** `METHOD /template` of the operation the request is made from (undefined for adversarial cases). */
  readonly operation?: string;
  /** The mutation kind (fuzz) or the pact's description. */
  readonly kind: string;
  readonly req: RawRequest;
  /** Pact: the status and code the provider run holds the real service to for this request. */
  readonly pactStatus?: number;
  readonly pactCode?: string;
}

/** Mutation kinds that say nothing about a request the service refuses: the unchanged spec example. */
const NOT_NEGATIVE = new Set(['baseline']);

/**
 * Every mutation kind of every operation of `api`, `samples` draws each (seeds 1, 2, …: the same requests
 * every run). `keys` are the service's keys; the mock takes any key.
 */
export function fuzzProbes(api: ApiName, keys: Keys | undefined, samples = 1): Probe[] {
  const spec = loadSpec(api);
  const probes: Probe[] = [];
  let seed = 1;
  for (const op of spec.operations) {
    const operation = `${op.method.toUpperCase()} ${op.path}`;
    for (const k of [...mutationKinds(spec, op, keys), ...hostileKinds(spec, op, keys)]) {
      if (NOT_NEGATIVE.has(k.kind)) continue;
      for (const m of fc.sample(k.arb, { seed: seed++, numRuns: samples })) {
        probes.push({
          source: 'fuzz',
          name: `${operation} [${m.kind}] ${m.note}`,
          operation,
          kind: m.kind,
          req: m.req,
        });
      }
    }
  }
  return probes;
}

interface PactInteraction {
  description: string;
  request: {
    method: string;
    path: string;
    query?: Record<string, string[]>;
    headers?: Record<string, string[]>;
    body?: { content?: unknown };
  };
  response: { status: number; body?: { content?: unknown } };
}

/** `METHOD /template` of the spec operation serving a concrete path; a path without parameters wins. */
function operationOf(api: ApiName, method: string, path: string): string | undefined {
  const ops = loadSpec(api)
    .operations.filter((o) => o.method === method.toLowerCase())
    .filter((o) =>
      new RegExp(`^${o.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`).test(path),
    )
    .sort((a, b) => (a.path.match(/\{/g)?.length ?? 0) - (b.path.match(/\{/g)?.length ?? 0));
  return ops[0] ? `${method.toUpperCase()} ${ops[0].path}` : undefined;
}

/** The code a pact's answer carries, named as the corpus's checks name a service's answer. */
function pactCodeOf(status: number, content: unknown): string | undefined {
  const b = content as Record<string, any> | undefined;
  if (b?.['verified'] === false || (Array.isArray(b?.['problemDetails']) && b?.['code'] === undefined))
    return 'verified:false';
  if (status === 410 && b && 'didDocumentMetadata' in b) return 'deactivated';
  const code = b?.['error'] ?? b?.['code'] ?? b?.['didResolutionMetadata']?.['error'];
  return typeof code === 'string' ? code : undefined;
}

/** The interactions of a committed pact that the provider answers with a 4xx, as requests. */
export function pactProbes(api: ApiName, pactFile: string): Probe[] {
  const pact = JSON.parse(readFileSync(path.resolve(root, pactFile), 'utf8')) as { interactions: PactInteraction[] };
  return pact.interactions
    .filter((i) => i.response.status >= 400 && i.response.status < 500)
    .map((i) => {
      const query = Object.entries(i.request.query ?? {}).flatMap(([k, values]) => values.map((v) => [k, v]));
      const headers = Object.fromEntries(
        Object.entries(i.request.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v.join(', ')]),
      );
      const content = i.request.body?.content;
      const body = content === undefined ? undefined : typeof content === 'string' ? content : JSON.stringify(content);
      const operation = operationOf(api, i.request.method, decodeURIComponent(i.request.path));
      const code = pactCodeOf(i.response.status, i.response.body?.content);
      return {
        source: 'pact' as const,
        name: `${i.request.method} ${i.request.path}: ${i.description}`,
        kind: i.description,
        ...(operation ? { operation } : {}),
        ...(code ? { pactCode: code } : {}),
        req: {
          method: i.request.method,
          path: `${i.request.path}${query.length ? `?${new URLSearchParams(query)}` : ''}`,
          headers,
          ...(body !== undefined ? { body } : {}),
        },
        pactStatus: i.response.status,
      };
    });
}

/** The stable code of an answer: `error` (vault API), `code` (resolver) or the resolution result's error. */
export function codeOf(a: Answer): string | undefined {
  const b = a.body as Record<string, any> | undefined;
  const code = b?.['error'] ?? b?.['code'] ?? b?.['didResolutionMetadata']?.['error'];
  return typeof code === 'string' ? code : undefined;
}

export { send, type Answer };
