// The two baselines: a bare node:http server (the physical ceiling) and Express 5 + express-openapi-validator
// on one trivial validated route (the framework ceiling). Both answer the same fixed JSON, the fields and
// size of a real GET /config body (the http section compares it with the real answer and says so).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import * as OpenApiValidator from 'express-openapi-validator';

export interface RunningServer {
  url: string;
  close(): Promise<void>;
}

export const FIXED_CONFIG = {
  rpcUrl: 'http://127.0.0.1:8000/testnet/rpc',
  networkPassphrase: 'Credential Vault Simulator Testnet ; 2026',
  networkType: 'testnet',
  protocolVersion: 28,
  factoryContractId: 'CABAEAQCAIBAEAQCAIBAEAQCAIBAEAQCAIBAEAQCAIBAEAQCAIBAFNSZ',
  vaultWasmHash: '5c9a3e1f7b2d4c6a8e0f1a3b5d7c9e2f4a6b8d0c1e3f5a7b9c2d4e6f8a0b1c3d',
  didStellarRegistryId: 'CAEQSCIJBEEQSCIJBEEQSCIJBEEQSCIJBEEQSCIJBEEQSCIJBEEQTD2L',
  svcContractId: 'CABAEAQCAIBAEAQCAIBAEAQCAIBAEAQCAIBAEAQCAIBAEAQCAIBAFNSZ',
} as const;

/** The framework ceiling's whole description: one GET with a validated query parameter and response schema. */
export const CEILING_SPEC = {
  openapi: '3.1.0',
  info: { title: 'framework ceiling', version: '1.0.0' },
  paths: {
    '/config': {
      get: {
        operationId: 'getConfig',
        parameters: [{ name: 'verbose', in: 'query', required: false, schema: { type: 'boolean' } }],
        responses: {
          '200': {
            description: 'fixed configuration',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  additionalProperties: false,
                  required: Object.keys(FIXED_CONFIG),
                  properties: Object.fromEntries(
                    Object.entries(FIXED_CONFIG).map(([k, v]) => [
                      k,
                      { type: typeof v === 'number' ? 'integer' : 'string' },
                    ]),
                  ),
                },
              },
            },
          },
        },
      },
    },
  },
} as const;

function listen(server: http.Server): Promise<RunningServer> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        url: `http://127.0.0.1:${port}`,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}

export function startBareServer(): Promise<RunningServer> {
  const body = Buffer.from(JSON.stringify(FIXED_CONFIG));
  return listen(
    http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length });
      res.end(body);
    }),
  );
}

/** Request validation on, response validation off: how the services run in production. */
export function startExpressCeiling(): Promise<RunningServer> {
  const app = express();
  app.disable('x-powered-by');
  app.use(express.json({ limit: '512kb' }));
  app.use(
    OpenApiValidator.middleware({
      apiSpec: structuredClone(CEILING_SPEC) as never,
      validateRequests: { allErrors: true, allowUnknownQueryParameters: false },
      validateResponses: false,
      validateSecurity: false,
      fileUploader: false,
      ignoreUndocumented: false,
    }),
  );
  app.get('/config', (_req, res) => {
    res.json(FIXED_CONFIG);
  });
  app.use(
    (
      err: { status?: number; message?: string },
      _req: express.Request,
      res: express.Response,
      _next: express.NextFunction,
    ) => {
      res.status(err.status ?? 500).json({ error: 'invalid_request', message: err.message ?? 'error' });
    },
  );
  return listen(http.createServer(app));
}
