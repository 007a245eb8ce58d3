// did:web Read (did:web Method Specification §3.2): the document's URL, and a document that must name its DID.
import { describe, expect, it } from 'vitest';
import { didWebUrl, resolveDidWeb } from './did-web.ts';

describe('didWebUrl', () => {
  it.each([
    ['did:web:example.com', 'https://example.com/.well-known/did.json'],
    ['did:web:example.com:user:alice', 'https://example.com/user/alice/did.json'],
    ['did:web:example.com%3A8443', 'https://example.com:8443/.well-known/did.json'],
    ['did:web:', undefined],
    ['did:web:example.com::x', undefined],
    ['did:web:exa/mple.com', undefined],
    ['did:web:evil.com%2F@x', undefined],
    ['did:key:z6Mk', undefined],
  ])('%s → %s', (did, want) => {
    expect(didWebUrl(did)).toBe(want);
  });
});

describe('resolveDidWeb', () => {
  const doc = { id: 'did:web:example.com', verificationMethod: [] };
  it('answers the document that names the DID', async () => {
    const r = await resolveDidWeb('did:web:example.com', async () => ({ ok: true, json: doc }));
    expect(r.didDocument).toEqual(doc);
  });
  it("refuses another DID's document, and reports a failed read as notFound", async () => {
    const other = await resolveDidWeb('did:web:example.org', async () => ({ ok: true, json: doc }));
    expect(other.didResolutionMetadata.error).toBe('invalidDid');
    const gone = await resolveDidWeb('did:web:example.com', async () => ({ ok: false, reason: 'answered HTTP 404' }));
    expect(gone.didResolutionMetadata.error).toBe('notFound');
  });
});
