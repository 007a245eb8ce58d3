// The fast path's JSON-LD context resolver (src/did/library-fast-path.ts fastContextResolver: type-scoped
// contexts kept processed across operations) against jsonld processing every context anew (its ContextResolver
// with caches that keep nothing: what the JSON-LD 1.1 algorithms say, without jsonld's processed-context cache,
// which serves a result made with protected terms overridable to a call that must refuse them). For generated
// JSON-LD documents that share a few generated contexts (type-scoped and property-scoped contexts, `@propagate`,
// `@protected` terms redefined the same, differently or unprotected), the eddsa-rdfc-2022 cryptosuite's
// canonicalization gives the same canonical N-Quads, or the same refusal, through both, whatever the documents
// canonicalized before through the fast one.
import { createRequire } from 'node:module';
import { cryptosuite as eddsaRdfc2022 } from '@digitalbazaar/eddsa-rdfc-2022-cryptosuite';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { staticDocumentLoader } from '../src/did/json-ld.ts';
import { fastContextResolver } from '../src/did/library-fast-path.ts';
import { runParams } from './harness.ts';

type Json = Record<string, unknown>;
const V2 = 'https://www.w3.org/ns/credentials/v2';
const documentLoader = staticDocumentLoader({});

const TERMS = ['a', 'b', 'c'] as const;
const TYPES = ['T', 'U'] as const;
const PROPS = ['p', 'q'] as const;

/** A term's definition: an IRI, or an object that may protect it or type its values. */
const termDefinition = (term: string) =>
  fc.oneof(
    fc.constantFrom(`https://ex.org/${term}`, `https://ex.org/other-${term}`),
    fc.record(
      {
        '@id': fc.constantFrom(`https://ex.org/${term}`, `https://ex.org/other-${term}`),
        '@protected': fc.boolean(),
        '@type': fc.constant('@id'),
      },
      { requiredKeys: ['@id'] },
    ),
  );

/** A scoped context: some of the terms (re)defined, maybe not propagated, maybe protected. */
const scopedContext = fc
  .tuple(
    // (jsonld refuses a scoped context that says `@protected: false`.)
    fc.record({ '@propagate': fc.boolean(), '@protected': fc.constant(true) }, { requiredKeys: [] }),
    fc.subarray([...TERMS]).chain((ts) => fc.tuple(...ts.map((t) => termDefinition(t).map((d) => [t, d] as const)))),
  )
  .map(([flags, defs]) => ({ ...flags, ...Object.fromEntries(defs) }));

/**
 * A top context: the terms, types and properties with scoped contexts, maybe all protected, maybe a vocab. The
 * scoped contexts come from a pool of two, so one context is often both a type's and a property's: jsonld
 * applies a property's with protected terms overridable, a type's without.
 */
const topContext = fc
  .tuple(
    // (jsonld refuses a context-wide `@protected: false` after the terms: "cyclic IRI mapping".)
    fc.record(
      { '@protected': fc.constant(true), '@vocab': fc.constant('https://ex.org/vocab#') },
      { requiredKeys: [] },
    ),
    fc.tuple(...TERMS.map((t) => termDefinition(t))),
    fc.tuple(scopedContext, scopedContext),
    fc.tuple(...[...TYPES, ...PROPS].map(() => fc.option(fc.nat(1), { nil: undefined }))),
  )
  .map(([flags, terms, pool, scoped]) => {
    const ctx: Json = { ...flags };
    TERMS.forEach((t, i) => (ctx[t] = terms[i]));
    [...TYPES, ...PROPS].forEach((name, i) => {
      const s = scoped[i] === undefined ? undefined : pool[scoped[i]];
      ctx[name] = { '@id': `https://ex.org/${name}`, ...(s ? { '@context': s } : {}) };
    });
    return ctx;
  });

/** A node: maybe typed, some terms with values, maybe a nested node under a scoped property. */
const node = (depth: number): fc.Arbitrary<Json> =>
  fc
    .tuple(
      fc.option(fc.constantFrom(...TYPES), { nil: undefined }),
      fc.subarray([...TERMS]),
      fc.string({ maxLength: 3 }),
      depth > 0
        ? fc.option(fc.tuple(fc.constantFrom(...PROPS), node(depth - 1)), { nil: undefined })
        : fc.constant(undefined),
    )
    .map(([type, terms, value, nested]) => ({
      ...(type ? { type } : {}),
      ...Object.fromEntries(terms.map((t) => [t, t === 'c' ? `https://ex.org/v/${encodeURIComponent(value)}` : value])),
      ...(nested ? { [nested[0]]: nested[1] } : {}),
    }));

interface Resolved {
  document: unknown;
}
type ContextResolverClass = new (o: {
  sharedCache: Map<string, unknown>;
}) => {
  resolve(o: unknown): Promise<Resolved[]>;
};
const JsonldContextResolver = createRequire(import.meta.url)('jsonld/lib/ContextResolver.js') as ContextResolverClass;

/** jsonld's resolver with caches that keep nothing: every context resolved and processed anew. */
function uncachedResolver() {
  const inner = new JsonldContextResolver({ sharedCache: new Map() });
  return {
    resolve: async (o: unknown) =>
      (await inner.resolve(o)).map((r) => ({ document: r.document, getProcessed: () => undefined, setProcessed() {} })),
  };
}

/** The canonical N-Quads, or the refusal's code or message. */
async function canonical(document: Json, how: 'fast' | 'uncached'): Promise<string> {
  const contextResolver = how === 'fast' ? fastContextResolver() : uncachedResolver();
  expect(contextResolver).toBeDefined();
  try {
    return await eddsaRdfc2022.canonize(document, { documentLoader, contextResolver });
  } catch (e) {
    const err = e as { details?: { code?: string; event?: { code?: string } }; message?: string };
    return `refused: ${err.details?.code ?? err.details?.event?.code ?? err.message}`;
  }
}

describe('RDF cryptosuites: the fast path resolves JSON-LD contexts as jsonld does', () => {
  it('same canonical N-Quads or refusal for documents sharing generated contexts, in any order', async () => {
    const seen = { canonical: 0, refused: 0 };
    const params = runParams('library fast path contexts', 150);
    await fc.assert(
      fc.asyncProperty(
        fc.array(topContext, { minLength: 1, maxLength: 3 }),
        fc.array(fc.tuple(fc.nat(), fc.boolean(), node(2)), { minLength: 1, maxLength: 6 }),
        async (contexts, docs) => {
          for (const [which, withVc, body] of docs) {
            const ctx = contexts[which % contexts.length]!;
            // `type` is an alias of @type under the VC context; without it, the generated context defines it.
            const document = {
              '@context': withVc ? [V2, ctx] : [{ id: '@id', type: '@type' }, ctx],
              id: 'urn:uuid:00000000-0000-4000-8000-000000000000',
              ...body,
            };
            const expected = await canonical(document, 'uncached');
            expect(await canonical(document, 'fast')).toBe(expected);
            // Again, with every context of it now processed and kept.
            expect(await canonical(document, 'fast')).toBe(expected);
            seen[expected.startsWith('refused') ? 'refused' : 'canonical']++;
          }
        },
      ),
      params,
    );
    // Both outcomes are exercised: protected redefinitions and undefined terms refused, the rest canonicalized.
    expect(seen.canonical).toBeGreaterThan(Number(params.numRuns) / 4);
    expect(seen.refused).toBeGreaterThan(0);
  }, 180_000);

  it('a context that redefines a protected term is refused where jsonld refuses it, after it was accepted', async () => {
    // X redefines the protected `a`: allowed as a property-scoped context (protected terms may be overridden
    // there), refused as a type-scoped one, both applied with @propagate false to the same active context.
    const x = { '@propagate': false, a: 'https://ex.org/other-a' };
    const ctx = {
      '@protected': true,
      type: '@type',
      a: 'https://ex.org/a',
      T: { '@id': 'https://ex.org/T', '@context': x },
      p: { '@id': 'https://ex.org/p', '@context': x },
    };
    const asProperty = { '@context': ctx, p: { a: 'v' } };
    const asType = { '@context': ctx, type: 'T', a: 'v' };
    for (const document of [asProperty, asType, asProperty, asType]) {
      const expected = await canonical(document, 'uncached');
      expect(await canonical(document, 'fast')).toBe(expected);
    }
    expect(await canonical(asType, 'uncached')).toBe('refused: protected term redefinition');
    expect(await canonical(asProperty, 'uncached')).toContain('<https://ex.org/other-a>');
  });
});
