// Replays a committed pact against the Prism mock of the provider's spec, so the published mock and the
// real service can never disagree with what consumers rely on.
//
// Prism answers from the spec's examples, so each replayed request carries `Prefer: code=<status>,
// example=<name>`: the status the interaction expects and the spec example whose body has the fields
// and the error code the interaction expects. The headers go into a copy of the pact (in a temporary
// directory); the committed pact stays as the consumer wrote it. Provider states have nothing to build
// on a mock: their handlers return no values, so every `fromProviderState` value keeps the pact's example.
//
// Interactions Prism cannot serve are excluded by description, each with its reason (also in
// contract-tests/README.md). An exclusion must name an interaction of the pact, and every excluded
// interaction must still fail against Prism: a stale exclusion fails the test.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startPrismMock } from '../../helpers/prism.ts';
import { deref, loadSpec, type Json } from '../../helpers/spec.ts';
import { startConformanceProxy } from '../conformance.ts';
import { verifyQuietly } from '../quiet-verifier.ts';
import type { StateHandlers } from '../provider/states.ts';

/** An interaction Prism cannot serve, and why. */
export interface PrismExclusion {
  readonly description: string;
  readonly why: string;
}

interface PactInteraction {
  description: string;
  providerStates?: { name: string }[];
  request: {
    method: string;
    path: string;
    query?: Record<string, string[]>;
    headers?: Record<string, string[]>;
    body?: { content?: Json };
  };
  response: { status: number; headers?: Record<string, string[]>; body?: { content?: Json } };
}

export interface ReplayResult {
  /** Descriptions verified against Prism. */
  verified: string[];
  /** Descriptions excluded, each confirmed to fail against Prism. */
  excluded: string[];
  /** The Prefer header sent per description. */
  prefer: Record<string, string>;
}

/** The spec operation of a concrete request path; a static path wins over a template. */
function operationOf(spec: Json, method: string, requestPath: string): Json {
  const candidates = Object.keys(spec.paths)
    .filter((template) =>
      new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}/g, '[^/]+')}$`).test(
        requestPath,
      ),
    )
    .filter((template) => spec.paths[template][method.toLowerCase()] !== undefined)
    .sort((a, b) => (a.match(/\{/g)?.length ?? 0) - (b.match(/\{/g)?.length ?? 0));
  const template = candidates[0];
  if (template === undefined) throw new Error(`no operation of the spec serves ${method} ${requestPath}`);
  return spec.paths[template][method.toLowerCase()];
}

/**
 * An example fits when it has every field the interaction expects, the same error code or status, and the
 * same top-level booleans (`verified: false` picks a failed verification, not the first example).
 */
function fits(example: Json, expected: Json): boolean {
  if (expected === undefined || expected === null || typeof expected !== 'object' || Array.isArray(expected))
    return true;
  if (example === null || typeof example !== 'object') return false;
  for (const [key, value] of Object.entries(expected)) {
    if (!(key in example)) return false;
    if (['error', 'code', 'status'].includes(key) && typeof value === 'string' && example[key] !== value) return false;
    if (typeof value === 'boolean' && example[key] !== value) return false;
  }
  return true;
}

/** `Prefer` for one interaction: its status, and the name of the first example that fits its body. */
export function preferFor(spec: Json, interaction: PactInteraction): string {
  const { status } = interaction.response;
  const operation = operationOf(spec, interaction.request.method, interaction.request.path.split('?')[0]!);
  const response = deref(spec, operation.responses?.[String(status)]);
  const declared = interaction.response.headers?.['Content-Type']?.[0] ?? 'application/json';
  const content = response?.content ?? {};
  const media = content[declared.split(';')[0]!.trim()] ?? Object.values(content)[0];
  const examples = Object.entries((media?.examples ?? {}) as Record<string, Json>);
  const name = examples.find(([, ex]) => fits(deref(spec, ex).value, interaction.response.body?.content))?.[0];
  return name === undefined ? `code=${status}` : `code=${status}, example=${name}`;
}

/** Whether Prism answers an interaction otherwise than the pact expects: another status or media type. */
async function answersOtherwise(baseUrl: string, i: PactInteraction, prefer: string): Promise<boolean> {
  const query = Object.entries(i.request.query ?? {}).flatMap(([k, values]) => values.map((v) => [k, v]));
  const url = `${baseUrl}${i.request.path}${query.length ? `?${new URLSearchParams(query)}` : ''}`;
  const headers = Object.fromEntries(Object.entries(i.request.headers ?? {}).map(([k, v]) => [k, v.join(', ')]));
  const content = i.request.body?.content;
  const res = await fetch(url, {
    method: i.request.method,
    headers: { ...headers, Prefer: prefer },
    ...(content !== undefined ? { body: typeof content === 'string' ? content : JSON.stringify(content) } : {}),
  });
  await res.arrayBuffer();
  const mediaType = (v: string | null | undefined) => v?.split(';')[0]?.trim().toLowerCase();
  const wanted = mediaType(i.response.headers?.['Content-Type']?.[0]);
  const answered = mediaType(res.headers.get('content-type'));
  return res.status !== i.response.status || (wanted !== undefined && wanted !== answered);
}

/** The descriptions of a verifier run's results, by outcome. */
function outcomes(results: string): { ok: string[]; failed: string[] } {
  const parsed = JSON.parse(results) as { interactionResults?: { description: string; result: string }[] };
  const all = parsed.interactionResults ?? [];
  return {
    ok: all.filter((r) => r.result === 'OK').map((r) => r.description),
    failed: all.filter((r) => r.result !== 'OK').map((r) => r.description),
  };
}

/** The verifier's run (in a child process: its report shows only when the run fails or asks for it). */
async function verify(
  provider: string,
  url: string,
  pactPath: string,
  states: StateHandlers,
): Promise<{ passed: boolean; results: string }> {
  const run = await verifyQuietly({
    provider,
    providerBaseUrl: url,
    pactUrls: [pactPath],
    stateHandlers: states,
    logLevel: 'error',
  });
  if (!run.passed && !run.results.startsWith('{')) {
    throw new Error(`the Pact verifier failed:\n${run.output}\n${run.results}`);
  }
  return { passed: run.passed, results: run.passed ? run.results : `${run.results}\n${run.output}` };
}

export async function replayAgainstPrism(options: {
  provider: string;
  pactPath: string;
  specPath: string;
  exclusions: readonly PrismExclusion[];
}): Promise<ReplayResult> {
  const pact = JSON.parse(await readFile(options.pactPath, 'utf8')) as Json;
  const spec = loadSpec(options.specPath);
  const interactions = pact.interactions as PactInteraction[];
  const descriptions = new Set(interactions.map((i) => i.description));
  const stale = options.exclusions.filter((e) => !descriptions.has(e.description));
  if (stale.length > 0)
    throw new Error(
      `exclusions that name no interaction of ${options.pactPath}: ${stale.map((e) => e.description).join('; ')}`,
    );
  const excluded = new Set(options.exclusions.map((e) => e.description));

  const prefer: Record<string, string> = {};
  const withPrefer = (i: PactInteraction): PactInteraction => {
    prefer[i.description] = preferFor(spec, i);
    return { ...i, request: { ...i.request, headers: { ...i.request.headers, Prefer: [prefer[i.description]!] } } };
  };
  const states: StateHandlers = Object.fromEntries(
    interactions.flatMap((i) => i.providerStates ?? []).map((s) => [s.name, async () => ({})]),
  );

  const dir = await mkdtemp(path.join(tmpdir(), 'cv-pact-prism-'));
  const served = path.join(dir, 'served.json');
  await writeFile(
    served,
    JSON.stringify({ ...pact, interactions: interactions.filter((i) => !excluded.has(i.description)).map(withPrefer) }),
  );

  const prism = await startPrismMock(options.specPath);
  const proxy = await startConformanceProxy(options.specPath);
  proxy.upstream = prism.url;
  try {
    const main = await verify(options.provider, proxy.url, served, states);
    if (!main.passed) throw new Error(`the Prism mock does not satisfy the pact:\n${main.results}`);
    if (proxy.violations.length > 0)
      throw new Error(`the Prism mock answered outside the spec:\n${proxy.violations.join('\n')}`);
    const verified = outcomes(main.results).ok;

    if (verified.length !== interactions.length - excluded.size) {
      throw new Error(
        `the Prism mock verified ${verified.length} of ${interactions.length - excluded.size} interactions`,
      );
    }
    if (excluded.size === 0) return { verified, excluded: [], prefer };
    // Sent by hand rather than through Pact's verifier, whose report of the expected failures would print
    // as red FAILED blocks in a passing run.
    const servable: string[] = [];
    for (const i of interactions.filter((x) => excluded.has(x.description))) {
      if (!(await answersOtherwise(prism.url, i, preferFor(spec, i)))) servable.push(i.description);
    }
    if (servable.length > 0)
      throw new Error(`excluded, yet Prism serves them (drop the exclusion): ${servable.join('; ')}`);
    return { verified, excluded: [...excluded], prefer };
  } finally {
    await proxy.close();
    await prism.stop();
    await rm(dir, { recursive: true, force: true });
  }
}
