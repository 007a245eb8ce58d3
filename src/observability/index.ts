// Observability of both services: structured logs, Prometheus metrics, readiness, graceful shutdown.
// How to mount it: ./README.md.
export {
  createLogger, withFields, requestLog, requestIdOf, assignRequestId, LOG_LEVELS, REDACTED_FIELDS, REDACT_PATHS,
} from './logging.ts';
export type { Logger, LoggerOptions, LogLevel, LogFields, RequestLogOptions } from './logging.ts';
export {
  createMetrics,
  createProcessMetrics,
  httpMetrics,
  metricsHandler,
  instrumentChain,
  instrumentCache,
  defaultRateLimitBucket,
  HTTP_BUCKETS,
  CHAIN_BUCKETS,
} from './metrics.ts';
export type {
  Metrics, MetricsOptions, HttpMetricsOptions, CacheResult, WriteMode, VerificationResult, DidOperation, DomainMetrics,
  BuildInfo, ServiceKind,
} from './metrics.ts';
export { readiness, runChecks, rpcCheck, storeChecks, DEFAULT_CHECK_TIMEOUT_MS } from './health.ts';
export type { ReadinessCheck, ReadinessOptions, ReadinessReport, CheckResult, CheckReason } from './health.ts';
export { gracefulShutdown } from './shutdown.ts';
export type { ShutdownOptions, ShutdownResult } from './shutdown.ts';
export { routeTemplate, toOpenApiPath, UNMATCHED_ROUTE } from './route.ts';
export type { RouteOf } from './route.ts';
