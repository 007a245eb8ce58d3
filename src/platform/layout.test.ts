// The shape that keeps both services on one platform (docs/architecture.md): each app is its route table
// and its domain handlers; request ids, spec loading, validator set-up, the error envelope, rate limiting
// and body decoding are src/platform/'s alone; neither app reaches into the other; nothing under src/
// patches a library's private internals. Each rule is checked on a sample that breaks it, so a rule that
// cannot fail fails here first.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { productionSources } from '../../test-support/sources.ts';

const SRC = fileURLToPath(new URL('..', import.meta.url));
const APPS = ['vault-api', 'resolver'] as const;

const files = (dir: string) => productionSources(SRC, dir);

/** What an app must leave to the platform, each with a sample that re-implements it. */
const PLATFORM_PIECES: { piece: string; pattern: RegExp; sample: string }[] = [
  {
    piece: 'request ids',
    pattern: /(set(Header)?|get|header)\(\s*['"]x-request-id['"]|headers\[\s*['"]x-request-id['"]\s*\]/i,
    sample: "res.setHeader('X-Request-ID', id)",
  },
  {
    piece: 'spec loading',
    pattern: /['"][^'"\n]*spec\/[\w-]+\.yaml['"]|\bYAML\.parse\(|\bparseYaml\(/,
    sample: "readFileSync(new URL('../../spec/vault-api.yaml', import.meta.url))",
  },
  {
    piece: 'validator set-up',
    pattern: /OpenApiValidator\.middleware\(|from ['"]express-openapi-validator\/dist/,
    sample: 'OpenApiValidator.middleware({ apiSpec })',
  },
  {
    piece: 'an error handler',
    pattern:
      /\(\s*_?err\w*\s*(:\s*\w+\s*)?,\s*_?req\w*\s*(:\s*\w+\s*)?,\s*_?res\w*\s*(:\s*\w+\s*)?,\s*_?next\w*\s*(:\s*\w+\s*)?\)\s*(=>|:|\{)|res\.headersSent/,
    sample: 'return (err: unknown, req: Request, res: Response, next: NextFunction) => {',
  },
  {
    piece: 'a rate limiter',
    pattern: /\.hit\(\s*\{/,
    sample: 'await deps.stores.rateLimiter.hit({ bucket, limit, windowMs, now })',
  },
  {
    piece: 'body decoding',
    pattern: /express\.json\(|from ['"](node:)?zlib['"]|from ['"]body-parser['"]/,
    sample: "import { gunzipSync } from 'node:zlib';",
  },
];

/** What only the platform's bootstrap (src/platform/app.ts) does, each with a sample that does it in an app. */
const BOOTSTRAP: { what: string; pattern: RegExp; sample: string }[] = [
  { what: 'make an Express app', pattern: /\bexpress\(\s*\)/, sample: 'const app = express();' },
  {
    what: 'import express-openapi-validator',
    pattern: /from ['"]express-openapi-validator['"]|import\(\s*['"]express-openapi-validator['"]/,
    sample: "import * as OpenApiValidator from 'express-openapi-validator';",
  },
  {
    what: 'mount the validator or build the operation model',
    pattern: /\bpathValidator\(|\bbuildModel\(|\bOpenApiValidator\.middleware\(/,
    sample: 'for (const route of model.routes) app.all(route.expressPath, pathValidator(model, route, o).validate);',
  },
  {
    what: 'declare the envelope of a request head Node cannot parse',
    pattern: /\bsetErrorEnvelope\(/,
    sample: 'setErrorEnvelope(app, (error, message) => ({ error, message }));',
  },
];

/** Reaching another app: an import path into its folder. */
const otherApp = (app: (typeof APPS)[number]) => new RegExp(`from ['"](\\.\\./)+${APPS.find((a) => a !== app)}/`);

/** Patching or re-implementing a library's internals. */
const PRIVATE_INTERNALS: { what: string; pattern: RegExp; sample: string }[] = [
  {
    what: "a dependency's own dependencies reached through createRequire",
    pattern: /createRequire\([^)]*createRequire|createRequire\([^)]*\.resolve\(/,
    sample: "createRequire(createRequire(import.meta.url).resolve('express-openapi-validator'))",
  },
  {
    what: "a package's unexported files",
    pattern: /from ['"](?!\.)[@\w/.-]+\/(dist|lib|build)\//,
    sample: "import x from 'express-openapi-validator/dist/middlewares/openapi.metadata';",
  },
  {
    what: "a router's private loop",
    pattern: /\.handle\(\s*req\s*,\s*res\s*,|router\.stack|app\._router/,
    sample: 'app._router.stack.splice(0, 1)',
  },
  {
    what: "underscore-named member of an object (Node's and libraries' private fields)",
    pattern: /[\w)\]]\._[A-Za-z]\w*|[\w)\]]\[\s*['"`]_[A-Za-z]\w*['"`]\s*\]/,
    sample: 'const inFlight = (socket as Duplex & { _httpMessage?: unknown })._httpMessage;',
  },
];

/** A cache evicted by hand: emptied or trimmed when it reaches a size, instead of an lru-cache bounded by `max`. */
const HAND_EVICTION = {
  what: 'a cache evicted by hand (a size check that clears or deletes): an LRUCache with `max` does it',
  pattern: /\.size\s*>=?\s*[\w.]+\s*\)\s*(\{\s*)?\w+\.(clear|delete)\(/,
  sample: 'if (known.size >= MAX_REMEMBERED_PATHS) known.clear();',
};

describe('each rule fails on a sample that breaks it', () => {
  for (const rule of PLATFORM_PIECES) it(rule.piece, () => expect(rule.pattern.test(rule.sample)).toBe(true));
  for (const rule of PRIVATE_INTERNALS) it(rule.what, () => expect(rule.pattern.test(rule.sample)).toBe(true));
  for (const rule of BOOTSTRAP) it(rule.what, () => expect(rule.pattern.test(rule.sample)).toBe(true));
  it('request ids, set through res.header', () => {
    const rule = PLATFORM_PIECES.find((r) => r.piece === 'request ids')!;
    expect(rule.pattern.test("res.header('X-Request-ID', id)")).toBe(true);
  });
  it('an underscore-named member read by its name in brackets', () => {
    const rule = PRIVATE_INTERNALS.find((r) => r.what.startsWith('underscore'))!;
    expect(rule.pattern.test("(socket as unknown as Record<string, unknown>)['_httpMessage']")).toBe(true);
    expect(rule.pattern.test('headers[`_private`]')).toBe(true);
    expect(rule.pattern.test("const key = ['_a', 'b'];")).toBe(false);
  });
  it(HAND_EVICTION.what, () => {
    expect(HAND_EVICTION.pattern.test(HAND_EVICTION.sample)).toBe(true);
    expect(HAND_EVICTION.pattern.test('if (seen.size > max) { seen.delete(seen.keys().next().value); }')).toBe(true);
    expect(HAND_EVICTION.pattern.test('if (known.size === 0) return;')).toBe(false);
  });
  it('another app', () => {
    expect(otherApp('vault-api').test("import { ResolverError } from '../../resolver/context.ts';")).toBe(true);
    expect(otherApp('resolver').test("import { ApiError } from '../vault-api/context.ts';")).toBe(true);
    expect(otherApp('vault-api').test("import { x } from '../vault-api/context.ts';")).toBe(false);
  });
});

describe('the apps leave the platform to src/platform/', () => {
  for (const app of APPS) {
    const sources = files(app);
    for (const rule of PLATFORM_PIECES) {
      it(`${app} does not re-implement ${rule.piece}`, () => {
        expect(sources.filter((f) => rule.pattern.test(f.text)).map((f) => f.file)).toEqual([]);
      });
    }
    it(`${app} does not import the other app's internals`, () => {
      expect(sources.filter((f) => otherApp(app).test(f.text)).map((f) => f.file)).toEqual([]);
    });
    it(`${app}/app.ts is built through the platform bootstrap`, () => {
      const text = readFileSync(path.join(SRC, app, 'app.ts'), 'utf8');
      expect(text).toContain(`from '../platform/app.ts'`);
      expect(text).toMatch(/\bcreateServiceApp\(/);
    });
    for (const rule of BOOTSTRAP) {
      it(`${app} does not ${rule.what} itself`, () => {
        expect(sources.filter((f) => rule.pattern.test(f.text)).map((f) => f.file)).toEqual([]);
      });
    }
  }
});

describe('nothing under src/ patches a library', () => {
  const all = readdirSync(SRC, { withFileTypes: true })
    .filter((d) => d.isDirectory() && d.name !== 'generated')
    .flatMap((d) => files(d.name));
  for (const rule of PRIVATE_INTERNALS) {
    it(`no ${rule.what}`, () => {
      expect(all.filter((f) => rule.pattern.test(f.text)).map((f) => f.file)).toEqual([]);
    });
  }
  it(`no ${HAND_EVICTION.what}`, () => {
    expect(all.filter((f) => HAND_EVICTION.pattern.test(f.text)).map((f) => f.file)).toEqual([]);
  });
});
