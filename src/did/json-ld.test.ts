import { describe, expect, it } from 'vitest';
import { ContextNotBundledError, LEDGER_VAULT_CONTEXT, staticDocumentLoader } from './json-ld.ts';

const V2 = 'https://www.w3.org/ns/credentials/v2';
const OPERATOR = 'https://contexts.example/operator/v1';

describe('staticDocumentLoader: what jsonld may keep in its process-wide cache (tag "static")', () => {
  const loader = staticDocumentLoader(
    { contexts: new Map([[OPERATOR, { '@context': { a: 'https://example.org/a' } }]]) },
    new Map([['did:key:z6Mk#z6Mk', { id: 'did:key:z6Mk#z6Mk' }]]),
  );

  it('a bundled context and the ledger-vault context at any deployment are static', async () => {
    expect(await loader(V2)).toMatchObject({ documentUrl: V2, tag: 'static' });
    const ledger = await loader('https://vault.example/contexts/ledger-vault/v1');
    expect(ledger).toEqual({
      contextUrl: null,
      documentUrl: 'https://vault.example/contexts/ledger-vault/v1',
      document: LEDGER_VAULT_CONTEXT,
      tag: 'static',
    });
  });

  it("an operator's context and a proof's verification method are not: jsonld reads them again per operation", async () => {
    const operator = await loader(OPERATOR);
    expect(operator.document).toEqual({ '@context': { a: 'https://example.org/a' } });
    expect(operator).not.toHaveProperty('tag');
    expect(await loader('did:key:z6Mk#z6Mk')).not.toHaveProperty('tag');
  });

  it("an operator's context under a bundled URL does not replace the bundled one", async () => {
    const shadow = staticDocumentLoader({ contexts: new Map([[V2, { '@context': { a: 'https://evil.example/a' } }]]) });
    expect((await shadow(V2)).document).not.toEqual({ '@context': { a: 'https://evil.example/a' } });
  });

  it('anything else is refused, never fetched', async () => {
    await expect(loader('https://contexts.example/unknown/v1')).rejects.toBeInstanceOf(ContextNotBundledError);
    await expect(loader('https://vault.example/contexts/ledger-vault/v1?x=1')).rejects.toBeInstanceOf(
      ContextNotBundledError,
    );
  });
});
