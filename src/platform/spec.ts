// The two descriptions, each modelled once per process. Callers must not mutate what they get.
import { readFileSync } from 'node:fs';
import YAML from 'yaml';
import { type ApiModel, buildModel, type OpenApiDocument } from './operations.ts';

const parsed = new Map<string, ApiModel>();

function loadModel(name: 'vault-api' | 'did-resolver'): ApiModel {
  const text = () => readFileSync(new URL(`../../spec/${name}.yaml`, import.meta.url), 'utf8');
  const model = parsed.get(name) ?? buildModel(YAML.parse(text()) as OpenApiDocument);
  parsed.set(name, model);
  return model;
}

export const loadVaultModel = (): ApiModel => loadModel('vault-api');
export const loadResolverModel = (): ApiModel => loadModel('did-resolver');
