// A DID document of a DIF registrar request (DID Registration §didDocument) mapped onto a did:ledger registry
// record: the keys of authentication, assertionMethod and keyAgreement (Multikey `publicKeyMultibase`, embedded
// or referenced from verificationMethod), the services (`#service-<idSuffix>` or `#<idSuffix>`, one string
// endpoint) and, from the options, the metadata URI and hash. A field the record cannot hold is refused by
// name, never dropped: what the registrar writes is what the client will resolve.
import type { DidKey, DidRecordInput, DidService } from '../../did/index.ts';

/** A refusal naming the field (`didDocument.alsoKnownAs`, `didDocument.service[0].serviceEndpoint`). */
export class DocumentRefusal extends Error {
  readonly field: string;
  constructor(field: string, message: string) {
    super(`${field}: ${message}`);
    this.field = field;
  }
}

/** Properties of a document the record holds, or that are taken as given (`@context`, `id`). */
const DOCUMENT_FIELDS: ReadonlySet<string> = new Set([
  '@context',
  'id',
  'verificationMethod',
  'authentication',
  'assertionMethod',
  'keyAgreement',
  'service',
]);
const RELATIONSHIPS = ['authentication', 'assertionMethod', 'keyAgreement'] as const;
const METHOD_FIELDS: ReadonlySet<string> = new Set(['id', 'type', 'controller', 'publicKeyMultibase']);
/** Verification method types whose key is a Multikey `publicKeyMultibase`. */
const METHOD_TYPES: ReadonlySet<string> = new Set([
  'Multikey',
  'Ed25519VerificationKey2020',
  'X25519KeyAgreementKey2020',
]);
const SERVICE_FIELDS: ReadonlySet<string> = new Set(['id', 'type', 'serviceEndpoint']);

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The fragment of an id relative to `did` (`#x` and `did#x` both give `x`); undefined for another DID's. */
function fragmentOf(id: string, did: string): string | undefined {
  if (id.startsWith('#')) return id.slice(1);
  if (id.startsWith(`${did}#`)) return id.slice(did.length + 1);
  return undefined;
}

function checkFields(o: Json, allowed: ReadonlySet<string>, at: string, what: string): void {
  for (const k of Object.keys(o)) {
    if (!allowed.has(k)) throw new DocumentRefusal(`${at}.${k}`, `a did:ledger record holds no ${what} ${k}`);
  }
}

/** One verification method as a record key. */
function keyOf(vm: unknown, at: string, did: string): DidKey {
  if (!isObject(vm)) throw new DocumentRefusal(at, 'must be a verification method object or a reference to one');
  checkFields(vm, METHOD_FIELDS, at, 'verification method property');
  if (vm.type !== undefined && !(typeof vm.type === 'string' && METHOD_TYPES.has(vm.type)))
    throw new DocumentRefusal(`${at}.type`, `must be one of ${[...METHOD_TYPES].join(', ')}`);
  if (vm.controller !== undefined && vm.controller !== did)
    throw new DocumentRefusal(`${at}.controller`, `must be the DID itself (${did}); the record names no other`);
  if (typeof vm.publicKeyMultibase !== 'string')
    throw new DocumentRefusal(`${at}.publicKeyMultibase`, 'is required (a Multikey)');
  return { publicKeyMultibase: vm.publicKeyMultibase };
}

/** The keys of the relationships; every verification method must be used by one of them. */
function keysOf(doc: Json, did: string): Pick<DidRecordInput, (typeof RELATIONSHIPS)[number]> {
  const methods = doc.verificationMethod ?? [];
  if (!Array.isArray(methods)) throw new DocumentRefusal('didDocument.verificationMethod', 'must be an array');
  const used = new Set<number>();
  const byFragment = (ref: string, at: string): DidKey => {
    const want = fragmentOf(ref, did);
    const i = methods.findIndex((m) => isObject(m) && typeof m.id === 'string' && fragmentOf(m.id, did) === want);
    if (want === undefined || i < 0)
      throw new DocumentRefusal(at, `${ref} names no verification method of this document`);
    used.add(i);
    return keyOf(methods[i], `didDocument.verificationMethod[${i}]`, did);
  };
  const out = { authentication: [] as DidKey[], assertionMethod: [] as DidKey[], keyAgreement: [] as DidKey[] };
  for (const rel of RELATIONSHIPS) {
    const entries = doc[rel] ?? [];
    if (!Array.isArray(entries)) throw new DocumentRefusal(`didDocument.${rel}`, 'must be an array');
    out[rel] = entries.map((e, j) =>
      typeof e === 'string' ? byFragment(e, `didDocument.${rel}[${j}]`) : keyOf(e, `didDocument.${rel}[${j}]`, did),
    );
  }
  methods.forEach((_, i) => {
    if (!used.has(i))
      throw new DocumentRefusal(
        `didDocument.verificationMethod[${i}]`,
        'is in no relationship the record holds (authentication, assertionMethod, keyAgreement)',
      );
  });
  return out;
}

function servicesOf(doc: Json, did: string): DidService[] {
  const services = doc.service ?? [];
  if (!Array.isArray(services)) throw new DocumentRefusal('didDocument.service', 'must be an array');
  return services.map((s, i) => {
    const at = `didDocument.service[${i}]`;
    if (!isObject(s)) throw new DocumentRefusal(at, 'must be an object');
    checkFields(s, SERVICE_FIELDS, at, 'service property');
    const fragment = typeof s.id === 'string' ? fragmentOf(s.id, did) : undefined;
    if (fragment === undefined) throw new DocumentRefusal(`${at}.id`, `must be #service-<idSuffix> of ${did}`);
    if (typeof s.type !== 'string') throw new DocumentRefusal(`${at}.type`, 'must be one string');
    if (typeof s.serviceEndpoint !== 'string')
      throw new DocumentRefusal(`${at}.serviceEndpoint`, 'must be one URL string (no maps or sets)');
    const idSuffix = fragment.startsWith('service-') ? fragment.slice('service-'.length) : fragment;
    return { idSuffix, serviceType: s.type, serviceEndpoint: s.serviceEndpoint };
  });
}

export interface RecordOfDocument {
  did: string;
  controller: string;
  document: unknown;
  metadataUri?: string | undefined;
  metadataHash?: string | undefined;
}

/** The record a document stands for; DocumentRefusal naming the first field it cannot hold. */
export function recordOfDocument(o: RecordOfDocument): DidRecordInput {
  const doc = o.document;
  if (!isObject(doc)) throw new DocumentRefusal('didDocument', 'must be one DID document object');
  checkFields(doc, DOCUMENT_FIELDS, 'didDocument', 'document property');
  if (doc.id !== undefined && doc.id !== o.did) throw new DocumentRefusal('didDocument.id', `must be ${o.did}`);
  return {
    controller: o.controller,
    ...keysOf(doc, o.did),
    services: servicesOf(doc, o.did),
    ...(o.metadataUri !== undefined ? { metadataUri: o.metadataUri } : {}),
    ...(o.metadataHash !== undefined ? { metadataHash: o.metadataHash } : {}),
  };
}
