// What the tests show of the services' own JSON log lines: nothing, unless asked. `DEBUG=1 npm test` or
// `LOG_LEVEL=info npm test` (any level of src/config) shows them; a passing run stays quiet otherwise.
// (No import of src/: vitest.config.ts reads this file before anything is loaded.)

/** src/config's `--log-level` values. */
const LEVELS = ['silent', 'error', 'warn', 'info', 'debug'] as const;
type LogLevel = (typeof LEVELS)[number];

function asked(env: NodeJS.ProcessEnv): LogLevel {
  const level = env['LOG_LEVEL'];
  if (level !== undefined && (LEVELS as readonly string[]).includes(level)) return level as LogLevel;
  return env['DEBUG'] ? 'debug' : 'silent';
}

/** The `--log-level` of services a test starts. */
export const TEST_LOG_LEVEL: LogLevel = asked(process.env);

/** The same as command-line flags, for `loadConfig` and `credential-vault` child processes. */
export const TEST_LOG_ARGS: readonly string[] = ['--log-level', TEST_LOG_LEVEL];

/** Whether the run asked to see logs and console output (vitest's `silent` follows it). */
export const SHOW_OUTPUT = TEST_LOG_LEVEL !== 'silent';
