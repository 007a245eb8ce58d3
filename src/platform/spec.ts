// The two descriptions (spec/vault-api.yaml, spec/did-resolver.yaml) at run time: each read and parsed once
// per process, whichever app or test asks first. Callers must not mutate what they get: the validator is
// given its own copies (validator.ts).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import YAML from 'yaml';

type Json = Record<string, unknown>;

/** A parsed OpenAPI 3.1 description. */
export interface OpenApiDocument extends Json {
  openapi: string;
  info: Json & { title?: string; version?: unknown };
  paths: Record<string, Json>;
  components: Json;
}

export const VAULT_SPEC_URL = new URL('../../spec/vault-api.yaml', import.meta.url);
export const RESOLVER_SPEC_URL = new URL('../../spec/did-resolver.yaml', import.meta.url);

const parsed = new Map<string, OpenApiDocument>();

/** The description at `url`, parsed once per process. */
export function loadSpec(url: URL): OpenApiDocument {
  let doc = parsed.get(url.href);
  if (doc === undefined) {
    doc = YAML.parse(readFileSync(fileURLToPath(url), 'utf8')) as OpenApiDocument;
    parsed.set(url.href, doc);
  }
  return doc;
}

export const loadVaultSpec = (): OpenApiDocument => loadSpec(VAULT_SPEC_URL);
export const loadResolverSpec = (): OpenApiDocument => loadSpec(RESOLVER_SPEC_URL);

/** Follows local `$ref`s (`#/components/…`) to the node they name; `{}` when there is none. */
export function resolveRef(doc: Json, node: unknown): Json {
  let current = node as Json | undefined;
  for (let hops = 0; typeof current?.['$ref'] === 'string' && hops < 10; hops++) {
    const ref = current['$ref'] as string;
    if (!ref.startsWith('#/')) throw new Error(`external $ref ${ref} is not supported`);
    current = ref
      .slice(2)
      .split('/')
      .reduce<unknown>(
        (at, part) => (at as Json | undefined)?.[part.replace(/~1/g, '/').replace(/~0/g, '~')],
        doc,
      ) as Json;
  }
  return current ?? {};
}
