// Declarations of digitalbazaar's signing libraries that tests and the bench use as the peer (they ship
// JavaScript only): the members called, in the libraries' own words.
declare module '@digitalbazaar/vc' {
  export function issue(options: { credential: unknown; suite: unknown; documentLoader: unknown }): Promise<any>;
  export function signPresentation(options: {
    presentation: unknown;
    suite: unknown;
    challenge: string;
    domain?: string;
    documentLoader: unknown;
  }): Promise<any>;
  export function verifyCredential(options: {
    credential: unknown;
    suite: unknown;
    documentLoader: unknown;
    checkStatus?: unknown;
  }): Promise<{ verified: boolean; error?: unknown }>;
}
declare module '@digitalbazaar/ed25519-multikey' {
  export function generate(options?: Record<string, unknown>): Promise<any>;
  export function from(key: Record<string, unknown>): Promise<any>;
}
declare module '@digitalbazaar/ecdsa-multikey' {
  export function generate(options: { curve: string }): Promise<any>;
}
declare module '@digitalbazaar/eddsa-jcs-2022-cryptosuite' {
  export function createSignCryptosuite(): unknown;
  export function createVerifyCryptosuite(): unknown;
}
declare module '@digitalbazaar/ecdsa-jcs-2019-cryptosuite' {
  export function createSignCryptosuite(): unknown;
}
