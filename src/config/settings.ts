// How a command line and the environment are read into raw values, for every setting of the table
// (setting-table.ts). Parsing and checking those values is index.ts's.
import { SETTINGS } from './setting-table.ts';

/** A setting's documented default as a number (the table above is the one place defaults live). */
function defaultNumber(key: string): number {
  return Number(SETTINGS.find((s) => s.key === key)!.default);
}

/** The chain client's timeouts when a caller gives none: the defaults of CV_RPC_TIMEOUT_MS and its siblings. */
export const CHAIN_TIMEOUT_DEFAULTS = {
  rpcMs: defaultNumber('rpcTimeoutMs'),
  submitMs: defaultNumber('submitTimeoutMs'),
  pollIntervalMs: defaultNumber('pollIntervalMs'),
} as const;

export type RawSettings = Record<string, string | undefined>;

/** Flags win over environment variables, which win over defaults. Unknown flags are left in `rest`. */
export function readSettings(
  argv: string[],
  env: NodeJS.ProcessEnv = process.env,
): { raw: RawSettings; problems: string[]; rest: string[] } {
  const raw: RawSettings = {};
  const problems: string[] = [];
  const rest: string[] = [];
  for (const s of SETTINGS) raw[s.key] = env[s.env] ?? s.default;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith('--')) {
      rest.push(arg);
      continue;
    }
    // Only the first `=` separates: a value keeps every later one (a URL's query, base64 padding).
    const eq = arg.indexOf('=');
    const name = eq < 0 ? arg : arg.slice(0, eq);
    const inline = eq < 0 ? undefined : arg.slice(eq + 1);
    const s = SETTINGS.find((x) => x.flag === name);
    if (!s) {
      rest.push(arg);
      continue;
    }
    const value =
      inline ??
      (s.kind === 'bool' && (argv[i + 1] === undefined || argv[i + 1]!.startsWith('--')) ? 'true' : argv[++i]);
    if (value === undefined) problems.push(`${name}: needs a value`);
    else raw[s.key] = value;
  }
  return { raw, problems, rest };
}

export class ConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    // One problem is one line; several are a list.
    const list = problems.map((p) => `  - ${p}`).join('\n');
    super(problems.length === 1 ? `invalid configuration: ${problems[0]}` : `invalid configuration:\n${list}`);
    this.problems = problems;
  }
}

/** Markdown table of every setting, for docs/operations.md and `credential-vault help`. */
export function settingsTable(): string {
  const cell = (t: string) => t.replaceAll('|', '\\|');
  const rows = SETTINGS.map((s) => `| \`${s.env}\` | \`${s.flag}\` | ${cell(s.default ?? '—')} | ${cell(s.doc)} |`);
  return ['| variable | flag | default | meaning |', '|---|---|---|---|', ...rows].join('\n');
}
