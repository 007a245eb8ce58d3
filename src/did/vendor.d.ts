// Declarations of the JSON-LD and Data Integrity libraries this code calls (they ship JavaScript only): only the
// members used here, in the libraries' own words.
declare module '@digitalbazaar/data-integrity' {
  export class DataIntegrityProof {
    constructor(options: { cryptosuite: unknown; signer?: unknown; date?: string });
    verifyProof(options: LinkedDataVerifyOptions): Promise<{ verified: boolean; error?: unknown }>;
  }
  export interface LinkedDataVerifyOptions {
    proof: Record<string, unknown>;
    proofSet: unknown[];
    document: Record<string, unknown>;
    documentLoader: (url: string) => Promise<unknown>;
    purpose: { validate(): Promise<{ valid: boolean }> };
  }
}
declare module '@digitalbazaar/eddsa-rdfc-2022-cryptosuite' {
  export const cryptosuite: Cryptosuite;
  export interface Cryptosuite {
    name: string;
    canonize(input: unknown, options: Record<string, unknown>): Promise<string>;
    [member: string]: unknown;
  }
}
declare module '@digitalbazaar/ecdsa-rdfc-2019-cryptosuite' {
  export const cryptosuite: import('@digitalbazaar/eddsa-rdfc-2022-cryptosuite').Cryptosuite;
}
declare module '@digitalbazaar/ecdsa-jcs-2019-cryptosuite' {
  export function createVerifyCryptosuite(): import('@digitalbazaar/eddsa-rdfc-2022-cryptosuite').Cryptosuite;
}
declare module '@digitalbazaar/ed25519-signature-2020' {
  export class Ed25519Signature2020 {
    constructor(options?: { canonizeOptions?: Record<string, unknown>; signer?: unknown; verifier?: unknown });
    verifyProof(
      options: import('@digitalbazaar/data-integrity').LinkedDataVerifyOptions,
    ): Promise<{ verified: boolean; error?: unknown }>;
  }
}
declare module '@digitalbazaar/credentials-context' {
  export const contexts: ReadonlyMap<string, unknown>;
}
declare module '@digitalbazaar/data-integrity-context' {
  export const contexts: ReadonlyMap<string, unknown>;
}
declare module '@digitalbazaar/multikey-context' {
  export const contexts: ReadonlyMap<string, unknown>;
}
declare module 'ed25519-signature-2020-context' {
  export const contexts: ReadonlyMap<string, unknown>;
}
declare module 'did-context' {
  export const contexts: ReadonlyMap<string, unknown>;
}
declare module '@digitalbazaar/vc-bitstring-status-list-context' {
  export const contexts: ReadonlyMap<string, unknown>;
}
declare module 'jsonld-signatures' {
  const jsigs: {
    sign(
      document: unknown,
      options: { suite: unknown; purpose: unknown; documentLoader: unknown },
    ): Promise<Record<string, unknown>>;
    purposes: {
      AssertionProofPurpose: new () => unknown;
      AuthenticationProofPurpose: new (options: { challenge?: string; domain?: string }) => unknown;
    };
  };
  export default jsigs;
}
