// The two descriptions, each modelled once per process. Callers must not mutate what they get.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import YAML from 'yaml';
import { type ApiModel, buildModel, type OpenApiDocument } from './operations.ts';

export type { OpenApiDocument };

export const VAULT_SPEC_URL = new URL('../../spec/vault-api.yaml', import.meta.url);
export const RESOLVER_SPEC_URL = new URL('../../spec/did-resolver.yaml', import.meta.url);

const parsed = new Map<string, ApiModel>();

export function loadModel(url: URL): ApiModel {
  let model = parsed.get(url.href);
  if (model === undefined) {
    model = buildModel(YAML.parse(readFileSync(fileURLToPath(url), 'utf8')) as OpenApiDocument);
    parsed.set(url.href, model);
  }
  return model;
}

export const loadVaultModel = (): ApiModel => loadModel(VAULT_SPEC_URL);
export const loadResolverModel = (): ApiModel => loadModel(RESOLVER_SPEC_URL);
export const loadVaultSpec = (): OpenApiDocument => loadVaultModel().document;
export const loadResolverSpec = (): OpenApiDocument => loadResolverModel().document;
