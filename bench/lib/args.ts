// Command-line flags of bench/run.ts and bench/load.ts: `--name value` or `--name=value`, nothing else.

export interface FlagSpec {
  /** Flag name without the leading dashes. */
  name: string;
  kind: 'string' | 'number';
  default?: string | number;
  /** Numbers: 0 is accepted too. */
  allowZero?: boolean;
  doc: string;
}

export type Flags = Record<string, string | number | undefined>;

export class UsageError extends Error {}

export function parseFlags(argv: readonly string[], specs: readonly FlagSpec[]): Flags {
  const flags: Flags = {};
  for (const s of specs) flags[s.name] = s.default;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--help' || arg === '-h') throw new UsageError(usage(specs));
    if (!arg.startsWith('--')) throw new UsageError(`unexpected argument ${JSON.stringify(arg)}\n${usage(specs)}`);
    const eq = arg.indexOf('=');
    const name = arg.slice(2, eq < 0 ? undefined : eq);
    const spec = specs.find((s) => s.name === name);
    if (!spec) throw new UsageError(`unknown flag --${name}\n${usage(specs)}`);
    const value = eq < 0 ? argv[++i] : arg.slice(eq + 1);
    if (value === undefined) throw new UsageError(`--${name} needs a value`);
    if (spec.kind === 'number') {
      const n = Number(value);
      if (!Number.isFinite(n) || n < 0 || (n === 0 && !spec.allowZero)) {
        throw new UsageError(
          `--${name} must be a ${spec.allowZero ? 'non-negative' : 'positive'} number, got ${JSON.stringify(value)}`,
        );
      }
      flags[name] = n;
    } else {
      flags[name] = value;
    }
  }
  return flags;
}

export function usage(specs: readonly FlagSpec[]): string {
  const lines = specs.map(
    (s) => `  --${s.name.padEnd(14)} ${s.doc}${s.default !== undefined ? ` (default ${s.default})` : ''}`,
  );
  return `flags:\n${lines.join('\n')}`;
}

/** A comma list flag (`--only http,cycle`) as a set; undefined when absent. */
export function listFlag(value: string | number | undefined): Set<string> | undefined {
  if (value === undefined) return undefined;
  return new Set(
    String(value)
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  );
}
