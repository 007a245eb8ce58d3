// Tests of both apps: every place a spec takes an account address or a contract id (path, query, body,
// nested body fields), as a request built from the spec's own examples with that one field replaced.
// Found by the schema (`format: stellar-account|stellar-contract`, or the bare `^G…`/`^C…` pattern), so a
// field added later is covered without a new row.
import { buildModel, resolve } from '../src/platform/operations.ts';

type Json = any; // parsed YAML, read where the operation model does not carry it (examples, nested schemas)

export type AddressKind = 'account' | 'contract';

export interface AddressFieldCase {
  /** `POST /contracts/vc/issue body owner`. */
  name: string;
  method: string;
  /** The concrete path, query string included. */
  url: string;
  body?: unknown;
  where: 'path' | 'query' | 'body';
  /** The field's name, dotted for nested body fields (`record.controller`). */
  field: string;
  kind: AddressKind;
}

/** A node with its `$ref`s followed by the operation model's resolver (src/platform/operations.ts). */
const deref = (spec: Json, node: Json): Json => resolve(spec, node);

function addressKind(spec: Json, schema: Json): AddressKind | undefined {
  const s = deref(spec, schema);
  if (!s || typeof s !== 'object') return undefined;
  if (s.format === 'stellar-account' || s.pattern === '^G[A-Z2-7]{55}$') return 'account';
  if (s.format === 'stellar-contract' || s.pattern === '^C[A-Z2-7]{55}$') return 'contract';
  for (const k of ['allOf', 'anyOf', 'oneOf']) {
    for (const sub of s[k] ?? []) {
      const kind = addressKind(spec, sub);
      if (kind) return kind;
    }
  }
  return undefined;
}

/** Address fields of a body schema (the prepare branch: a `{signedXdr}` branch holds none). */
function bodyFields(
  spec: Json,
  schema: Json,
  prefix: string[],
  out: { path: string[]; kind: AddressKind }[],
  depth = 0,
): void {
  const s = deref(spec, schema);
  if (!s || typeof s !== 'object' || depth > 6) return;
  const kind = prefix.length > 0 ? addressKind(spec, s) : undefined;
  if (kind) {
    out.push({ path: prefix, kind });
    return;
  }
  for (const k of ['allOf', 'anyOf', 'oneOf'])
    for (const sub of s[k] ?? []) bodyFields(spec, sub, prefix, out, depth + 1);
  for (const [name, sub] of Object.entries(s.properties ?? {}))
    bodyFields(spec, sub, [...prefix, name], out, depth + 1);
}

const exampleOf = (spec: Json, node: Json): unknown => {
  const n = deref(spec, node);
  if (n?.example !== undefined) return n.example;
  if (Array.isArray(n?.examples)) return n.examples[0];
  const schema = deref(spec, n?.schema);
  if (schema?.example !== undefined) return schema.example;
  if (Array.isArray(schema?.examples)) return schema.examples[0];
  return undefined;
};

/** The first request-body example that is not a submit (`{signedXdr}`). */
function prepareExample(spec: Json, media: Json): Json {
  if (media.example !== undefined) return media.example;
  const values = Object.values(media.examples ?? {}).map((e) => deref(spec, e).value);
  return values.find((v: Json) => !(v && typeof v === 'object' && 'signedXdr' in v)) ?? values[0];
}

function setAt(target: Json, path: string[], value: unknown): Json {
  const copy = structuredClone(target ?? {});
  let at = copy;
  for (const key of path.slice(0, -1)) at = at[key] = typeof at[key] === 'object' && at[key] !== null ? at[key] : {};
  at[path.at(-1)!] = value;
  return copy;
}

/** One request per address field of `spec` with that field set to `bad[kind]`. */
export function addressFieldCases(
  spec: Json,
  bad: Record<AddressKind, string>,
  skip: (path: string) => boolean = () => false,
): AddressFieldCase[] {
  const cases: AddressFieldCase[] = [];
  for (const operation of buildModel(spec).operations.values()) {
    const { template, method } = operation;
    if (skip(template) || !['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
    const op: Json = operation.source;
    const params: Json[] = [...operation.parameters.path, ...operation.parameters.query].map((p) => p.source);
    const build = (override?: { name: string; value: string }) => {
      let url = template;
      const query = new URLSearchParams();
      for (const p of params) {
        const mine = override !== undefined && override.name === p.name;
        const value = mine ? override.value : exampleOf(spec, p);
        if (p.in === 'path') url = url.replace(`{${p.name}}`, encodeURIComponent(String(value)));
        else if (mine || p.required) query.set(p.name, String(value));
      }
      const q = query.toString();
      return q ? `${url}?${q}` : url;
    };
    const M = method.toUpperCase();
    const media = op.requestBody ? deref(spec, op.requestBody).content?.['application/json'] : undefined;
    const example = media ? prepareExample(spec, media) : undefined;
    for (const p of params) {
      const kind = addressKind(spec, p.schema);
      if (!kind) continue;
      cases.push({
        name: `${M} ${template} ${p.in} ${p.name}`,
        method: M,
        url: build({ name: p.name, value: bad[kind] }),
        ...(media ? { body: example } : {}),
        where: p.in,
        field: p.name,
        kind,
      });
    }
    if (!media) continue;
    const fields: { path: string[]; kind: AddressKind }[] = [];
    bodyFields(spec, media.schema, [], fields);
    const seen = new Set<string>();
    for (const f of fields) {
      const field = f.path.join('.');
      if (seen.has(field)) continue;
      seen.add(field);
      cases.push({
        name: `${M} ${template} body ${field}`,
        method: M,
        url: build(),
        body: setAt(example, f.path, bad[f.kind]),
        where: 'body',
        field,
        kind: f.kind,
      });
    }
  }
  return cases;
}

/** Addresses that pass the specs' patterns but fail the StrKey checksum. */
export const BAD_CHECKSUMS: readonly Record<AddressKind, string>[] = [
  // The review's reproduction: `G` + 55×`A`.
  { account: `G${'A'.repeat(55)}`, contract: `C${'A'.repeat(55)}` },
  // A real address with its last character changed.
  {
    account: 'GCFIRY65OQE7DFP5KLNS2PF2LVZMUZYJX4OZIEQ36N2IQANUB5XVYOJS',
    contract: 'CD4FWXJVWXKDA6QU36W7SMC7PVVM2F43RTJIXY7G4PSF3A2YH52YRHWA',
  },
];
