// Observability of both services: structured logs, Prometheus metrics, readiness, graceful shutdown.
// How to mount it: ./README.md.
export { createLogger, withFields, requestLog } from './logging.ts';
export type { Logger } from './logging.ts';
export {
  createMetrics,
  createProcessMetrics,
  httpMetrics,
  metricsHandler,
  instrumentChain,
  instrumentCache,
} from './metrics.ts';
export type { Metrics, WriteMode, DidOperation, ServiceKind } from './metrics.ts';
export { readiness, rpcCheck, storeChecks } from './health.ts';
export type { ReadinessCheck } from './health.ts';
export { gracefulShutdown } from './shutdown.ts';
export { routeTemplate } from './route.ts';
