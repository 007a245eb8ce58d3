// 405 answers of both apps (docs/vault-api.md "HEAD and methods"): a path the description declares, with a method it
// does not, names the path's methods in `Allow` (RFC 9110 §15.5.6). "Declared" means a path template whose parameters
// fit their schemas' patterns: `POST /contracts/vault/open-to-all` only looks like `/contracts/vault/{owner}` (an
// owner is an account address), so it stays 404. HEAD is served wherever GET is (head.ts). OPTIONS stays 404
// `not_found`: no route answers a preflight except the two wallet-proof routes (vault-api.yaml "Browsers (CORS)").
type Json = Record<string, unknown>;

const METHODS: readonly string[] = ['get', 'head', 'post', 'put', 'patch', 'delete', 'options'];

/** `Allow` for a request path: the methods of the declared path it is, or undefined when it is none. */
export type AllowLookup = (path: string) => string | undefined;

function resolve(doc: Json, value: unknown): Json | undefined {
  let v = value;
  for (
    let hops = 0;
    hops < 10 && typeof v === 'object' && v !== null && typeof (v as Json)['$ref'] === 'string';
    hops++
  ) {
    const ref = (v as Json)['$ref'] as string;
    if (!ref.startsWith('#/')) return undefined;
    v = ref
      .slice(2)
      .split('/')
      .reduce<unknown>(
        (o, k) =>
          typeof o === 'object' && o !== null ? (o as Json)[k.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined,
        doc,
      );
  }
  return typeof v === 'object' && v !== null ? (v as Json) : undefined;
}

/** The pattern a path parameter's value must match (anchors removed), or any segment. */
function segmentPattern(doc: Json, item: Json, name: string): string {
  const ops = METHODS.map((m) => item[m]).filter((o): o is Json => typeof o === 'object' && o !== null);
  const params = [item['parameters'], ...ops.map((o) => o['parameters'])].flatMap((p) => (Array.isArray(p) ? p : []));
  for (const p of params) {
    const param = resolve(doc, p);
    if (param?.['in'] !== 'path' || param['name'] !== name) continue;
    const pattern = resolve(doc, param['schema'])?.['pattern'];
    if (typeof pattern === 'string') return `(?:${pattern.replace(/^\^/, '').replace(/\$$/, '')})`;
  }
  return '[^/]+';
}

export function allowLookup(doc: Json): AllowLookup {
  const paths = (doc['paths'] ?? {}) as Record<string, Json>;
  const routes = Object.entries(paths).map(([template, item]) => {
    const source = template
      .split(/(\{[^}/]+\})/)
      .map((part) => {
        const m = /^\{([^}/]+)\}$/.exec(part);
        return m ? segmentPattern(doc, item, m[1]!) : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      })
      .join('');
    const methods = METHODS.filter((m) => item[m] !== undefined).map((m) => m.toUpperCase());
    if (methods.includes('GET') && !methods.includes('HEAD')) methods.splice(methods.indexOf('GET') + 1, 0, 'HEAD');
    return { re: new RegExp(`^${source}$`), allow: methods.join(', ') };
  });
  return (path) => {
    let decoded = path;
    try {
      decoded = decodeURIComponent(path);
    } catch {
      return undefined;
    }
    return routes.find((r) => r.re.test(path) || r.re.test(decoded))?.allow;
  };
}

/** Whether a wrong method is answered 405 (else 404, as for an undeclared path). */
export const answers405 = (method: string): boolean => method !== 'OPTIONS';

export const methodNotAllowedMessage = (method: string, path: string, allow: string): string =>
  `${method} is not allowed on ${path}; this path accepts ${allow}`;
