// Types of the did:ledger method (docs/did-resolver.md) and of W3C DID Core 1.1 / DID Resolution.

import type { Network } from '../domain.ts';

/** A parsed `did:ledger:{network}:{didId}`. */
export interface ParsedDid {
  did: string;
  network: Network;
  /** 26 characters of RFC 4648 base32, lowercase, no padding (16 bytes). */
  didId: string;
}

/** DidKey of the registry: one Multikey (`z6Mk…` Ed25519, `z6LS…` X25519). */
export interface DidKey {
  publicKeyMultibase: string;
}

/** DidService of the registry; exposed in the document as `{did}#service-{idSuffix}`. */
export interface DidService {
  idSuffix: string;
  serviceType: string;
  serviceEndpoint: string;
}

/** What register and update send: the registry persists it as is and invents no defaults. */
export interface DidRecordInput {
  /** Classic `G…` account that signs every mutation. */
  controller: string;
  authentication: DidKey[];
  assertionMethod: DidKey[];
  keyAgreement: DidKey[];
  services: DidService[];
  /** HTTPS, at most 255 characters. */
  metadataUri?: string;
  /** SHA-256 of the metadata as 64 lowercase hex characters; requires metadataUri. */
  metadataHash?: string;
}

/** The on-chain record: the input plus the bookkeeping fields the registry overwrites. */
export interface DidRecord extends DidRecordInput {
  version: number;
  createdLedger: number;
  updatedLedger: number;
  deactivated: boolean;
}

/** W3C DID Core 1.1 §5.2 verification method, Multikey form. */
export interface VerificationMethod {
  id: string;
  type: 'Multikey';
  controller: string;
  publicKeyMultibase: string;
}

/** W3C DID Core 1.1 §5.4 service. */
export interface ServiceEndpoint {
  id: string;
  type: string;
  serviceEndpoint: string;
}

/** W3C DID Core 1.1 §4 DID document as this method produces it (no root `controller`). */
export interface DidDocument {
  '@context'?: string[];
  id: string;
  verificationMethod?: VerificationMethod[];
  /** Relative fragment references: `#auth-1`, … */
  authentication?: string[];
  assertionMethod?: string[];
  keyAgreement?: string[];
  service?: ServiceEndpoint[];
}

/** W3C DID Core 1.1 §7.1.3 DID document metadata, plus the method's own `method` block. */
export interface DidDocumentMetadata {
  versionId?: string;
  created?: string;
  updated?: string;
  deactivated?: boolean;
  method?: { network: Network; stellarAccount: string };
}

/** DID Resolution error values used by this resolver. */
export type ResolutionError =
  | 'invalidDid'
  | 'invalidOptions'
  | 'notFound'
  | 'representationNotSupported'
  | 'methodNotSupported'
  | 'internalError';

/** The two representations of the document (DID Core 1.1 §6). */
export type DidRepresentation = 'application/did+ld+json' | 'application/did+json';

/** W3C DID Resolution: resolution metadata. */
export interface DidResolutionMetadata {
  contentType?: DidRepresentation;
  error?: ResolutionError;
  message?: string;
}

/** W3C DID Resolution: the result of resolve(did). */
export interface DidResolutionResult {
  didDocument: DidDocument | null;
  didDocumentMetadata: DidDocumentMetadata;
  didResolutionMetadata: DidResolutionMetadata;
}
