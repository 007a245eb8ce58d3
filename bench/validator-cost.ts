// What request validation costs per request (docs/dependencies.md, express-openapi-validator): the same
// Express route of the vault API's model, with and without the platform's validator (src/platform/validator.ts),
// measured alternately in one process for `--rounds` rounds. Reports this process's CPU time per request.
//   node bench/validator-cost.ts [--rounds 4] [--duration 3]
import express, { type RequestHandler } from 'express';
import autocannon, { type Options, type Result } from 'autocannon';
import type { AddressInfo } from 'node:net';
import { parseFlags } from './lib/args.ts';
import { vaultModel } from '../src/platform/vault-model.ts';
import { pathValidator } from '../src/platform/validator.ts';

const flags = parseFlags(process.argv.slice(2), [
  { name: 'rounds', kind: 'number', default: 4, doc: 'alternating rounds per case' },
  { name: 'duration', kind: 'number', default: 3, doc: 'seconds per measurement' },
]);
const G = 'GCFIRY65OQE7DFP5KLNS2PF2LVZMUZYJX4OZIEQ36N2IQANUB5XVYOJR';
const model = vaultModel;

/** The spec's own prepare example of issueVc. */
function issueExample(): unknown {
  const op = model.document.paths['/contracts/vc/issue']!.post!;
  const ref = (op.requestBody as { $ref?: string }).$ref?.split('/').pop();
  const body = (ref ? model.document.components.requestBodies![ref] : op.requestBody) as {
    content: Record<string, { examples: Record<string, { value: unknown }> }>;
  };
  return body.content['application/json']!.examples['prepare']!.value;
}

const CASES = [
  { template: '/contracts/vault/vc-count', request: { method: 'GET', path: `/contracts/vault/vc-count?owner=${G}` } },
  {
    template: '/contracts/vc/issue',
    request: {
      method: 'POST',
      path: '/contracts/vc/issue',
      body: JSON.stringify(issueExample()),
    },
  },
];

async function serve(template: string, validated: boolean): Promise<string> {
  const route = model.routes.find((r) => r.template === template)!;
  const validate = pathValidator(model, route, { allErrors: true, validateResponses: false }).validate;
  const app = express();
  const steps: RequestHandler[] = [express.json(), ...(validated ? [validate] : [])];
  app.all(route.expressPath, ...steps, (_req, res) => void res.status(200).end('{}'));
  app.use(((err, _req, res, _next) => void res.status(599).end(String(err?.message))) as express.ErrorRequestHandler);
  const server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const run = (o: Options) =>
  new Promise<Result>((resolve, reject) =>
    autocannon({ ...o, connections: 10, duration: Number(flags.duration) }, (err, r) =>
      err ? reject(err) : resolve(r),
    ),
  );

for (const c of CASES) {
  const bases = { with: await serve(c.template, true), without: await serve(c.template, false) };
  const cpu = { with: 0, without: 0 };
  // Warm-up, not measured: the validator compiles a route's schemas on its first request.
  const { method, path, body } = c.request as { method: string; path: string; body?: string };
  for (const base of Object.values(bases)) {
    const res = await fetch(base + path, {
      method,
      ...(body ? { body, headers: { 'content-type': 'application/json' } } : {}),
    });
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  }
  await run({
    url: bases.with + path,
    method,
    ...(body ? { body, headers: { 'content-type': 'application/json' } } : {}),
  });
  for (let i = 0; i < Number(flags.rounds); i++) {
    for (const which of (i % 2 === 0 ? ['with', 'without'] : ['without', 'with']) as ('with' | 'without')[]) {
      const start = process.cpuUsage();
      const r = await run({
        url: bases[which] + path,
        method,
        ...(body ? { body, headers: { 'content-type': 'application/json' } } : {}),
      });
      const used = process.cpuUsage(start);
      if (r.errors > 0 || r.non2xx > 0) throw new Error(`${which} ${path}: ${JSON.stringify(r.statusCodeStats)}`);
      cpu[which] += (used.user + used.system) / r.requests.total / Number(flags.rounds);
    }
  }
  console.log(
    `| ${c.request.method} ${c.template} | ${cpu.without.toFixed(0)} µs | ${cpu.with.toFixed(0)} µs | ${(cpu.with - cpu.without).toFixed(0)} µs |`,
  );
}
process.exit(0);
