// The handler types refuse what the spec lacks: `npm run typecheck` fails on each `@ts-expect-error` below
// that stops being an error, and the write route's mode choice runs here.
import type { Request, Response } from 'express';
import { describe, expect, it } from 'vitest';
import type { operations } from '../generated/did-resolver.ts';
import type { operations as vaultOperations } from '../generated/vault-api.ts';
import type { OperationHandler } from './typed.ts';
import { sendJsonText } from './json-answer.ts';
import { prepareOrSubmit, signedXdrOf, writeOperation } from './write.ts';

type GetRecord = operations['getDidRecord'];

describe('types from the generated operations', () => {
  it('refuse a response field the spec lacks and a body field it does not send', () => {
    const handler: OperationHandler<GetRecord> = (req, res) => {
      const did: string = req.params.did;
      // @ts-expect-error the path has no parameter `owner`
      void req.params.owner;
      // @ts-expect-error GetDidRecordResponse has no `extra`
      res.json({ did, didId: 'x', record: undefined as never, extra: 1 });
    };
    expect(typeof handler).toBe('function');
    writeOperation<operations['registerDid']>(
      { routeOf: () => '/', codeOf: () => undefined },
      {
        prepare: async (body) => {
          const did: string = body.did;
          void did;
          // @ts-expect-error a prepare body has no signedXdr
          void body.signedXdr;
        },
        submit: async (_xdr, _req, res) => {
          // @ts-expect-error SubmitResponse has txId, not tx_id
          res.json({ tx_id: 'x' });
        },
      },
    );
  });
});

describe('the converted routes, one per file', () => {
  it('refuse what their operations lack', () => {
    // src/vault-api/routes/keys.ts: a 201 answer is typed by the operation's 201 body (ApiKeyCreated).
    const createKey: OperationHandler<vaultOperations['createKey']> = (req, res) => {
      const wallet: string = req.body.wallet_address;
      // @ts-expect-error CreateKey takes no `owner`
      void req.body.owner;
      const answer = { key: 'k', key_id: 'i', wallet_address: wallet, role: 'standard', scopes: [] } as const;
      // @ts-expect-error ApiKeyCreated needs network, created_at and expires_at
      res.status(201).json(answer);
      // @ts-expect-error a scope the spec does not list
      res.status(201).json({ ...answer, scopes: ['everything'], network: 'testnet', created_at: '', expires_at: null });
    };
    expect(typeof createKey).toBe('function');
    // Header parameters, by Node's lower-case names: a write declares Idempotency-Key.
    const revoke: OperationHandler<vaultOperations['revokeVc']> = (req) => {
      const key: string | undefined = req.headers['idempotency-key'];
      const id: string | undefined = req.headers['x-request-id'];
      // @ts-expect-error a declared header is a string, never Node's string[]
      const list: string[] | undefined = req.headers['idempotency-key'];
      void [key, id, list];
    };
    expect(typeof revoke).toBe('function');
    // src/resolver/routes/proof.ts
    const verifyProof: OperationHandler<operations['verifyProof']> = (req, res) => {
      const signature: string = req.body.signature;
      // @ts-expect-error the challenge is an object, not a string
      const challenge: string = req.body.challenge;
      void challenge;
      // @ts-expect-error ProofVerified has no `signature`
      res.json({ verified: true, did: 'd', verificationMethod: 'v', signature });
    };
    expect(typeof verifyProof).toBe('function');
    // src/vault-api/routes/verify.ts
    const createChallenge: OperationHandler<vaultOperations['createChallenge']> = (req, res) => {
      // @ts-expect-error createChallenge's body is optional, so it may be undefined
      void req.body.domain;
      // @ts-expect-error the answer is {challenge}, not {nonce}
      res.json({ nonce: 'n' });
    };
    expect(typeof createChallenge).toBe('function');
    // src/vault-api/routes/public.ts and reads.ts: a pre-serialized answer holds its body to the operation's.
    const verifyVc: OperationHandler<vaultOperations['verifyVc']> = (req, res) => {
      const status = { status: 'valid' } as const;
      // @ts-expect-error the verify-vc answer has no `extra`
      sendJsonText(req, res, { ...status, extra: 1 }, JSON.stringify(status));
      // @ts-expect-error GET /config's body is not the verify-vc answer
      sendJsonText(req, res, { rpcUrl: 'u' }, '{}');
    };
    expect(typeof verifyVc).toBe('function');
    // src/vault-api/routes/writes.ts and issuer-registry.ts: a prepare body is its operation's (PrepareBodyOf).
    const issue = writeOperation<vaultOperations['issueVc']>(
      { routeOf: () => '/', codeOf: () => undefined },
      {
        prepare: async (body) => {
          const issuer: string = body.issuer;
          void issuer;
          // @ts-expect-error IssuePrepare has no toOwner (pushVc's)
          void body.toOwner;
        },
        submit: async () => undefined,
      },
    );
    const getIssuerFee: OperationHandler<vaultOperations['getIssuerFee']> = (req, res) => {
      // @ts-expect-error IssuerFee's amount is a decimal string, not a number
      res.json({ issuer: req.params.issuer, enabled: true, amount: 1, token: null, dest: null });
    };
    expect([typeof issue, typeof getIssuerFee]).toEqual(['function', 'function']);
    // src/vault-api/routes/reads.ts
    const getVault: OperationHandler<vaultOperations['getVault']> = (req, res) => {
      const owner: string = req.params.owner;
      // @ts-expect-error VaultSummary names vc_count, not vcCount
      res.json({ owner, vault_address: '', did_uri: '', version: '1', vcCount: 0, denied_issuer_count: 0 });
    };
    expect(typeof getVault).toBe('function');
    // src/resolver/routes/service.ts
    const health: OperationHandler<operations['getHealth']> = (_req, res) => {
      // @ts-expect-error the resolver's health names its networks, not a single network
      res.json({ status: 'ok', timestamp: '', service: 'resolver', node: '', network: 'testnet' });
    };
    expect(typeof health).toBe('function');
    // src/resolver/routes/service.ts: the description is sent as text, its body held to getOpenApi's answer.
    const openapi: OperationHandler<operations['getOpenApi']> = (req, res) => {
      const doc = { openapi: '3.1.0', info: {}, paths: {} };
      sendJsonText(req, res, doc, JSON.stringify(doc));
      // @ts-expect-error an OpenAPI document's `openapi` is a string
      sendJsonText(req, res, { openapi: 3.1, info: {}, paths: {} }, '{}');
      // @ts-expect-error nor through res.send
      res.send('{}');
    };
    // src/vault-api/routes/verify.ts: an answer in application/ld+json is typed by its one media type.
    const context: OperationHandler<vaultOperations['getLedgerVaultContext']> = (_req, res) => {
      res.json({ '@context': { '@protected': true } });
      // @ts-expect-error JsonLdContext is {"@context": …}
      res.json({ context: {} });
    };
    expect([typeof openapi, typeof context]).toEqual(['function', 'function']);
  });
});

describe('prepareOrSubmit', () => {
  const run = async (body: unknown, fail = false) => {
    const seen: string[] = [];
    const handler = prepareOrSubmit(
      {
        routeOf: () => '/r',
        codeOf: (e) => (e as { code?: string }).code,
        submitted: (route, outcome) => seen.push(`${route} ${outcome}`),
      },
      {
        prepare: async () => void seen.push('prepare'),
        submit: async (xdr) => {
          seen.push(`submit ${xdr}`);
          if (fail) throw Object.assign(new Error('no'), { code: 'tx_failed' });
        },
      },
    );
    await handler({ body } as Request, {} as Response).catch(() => seen.push('thrown'));
    return seen;
  };

  it('a string signedXdr submits and is counted; anything else prepares, uncounted', async () => {
    expect(await run({ signedXdr: 'AAA' })).toEqual(['submit AAA', '/r success']);
    expect(await run({ signedXdr: 'AAA' }, true)).toEqual(['submit AAA', '/r tx_failed', 'thrown']);
    expect(await run({ sourcePublicKey: 'G' })).toEqual(['prepare']);
    expect(signedXdrOf({ signedXdr: 5 })).toBeUndefined();
    expect(signedXdrOf(null)).toBeUndefined();
  });
});
