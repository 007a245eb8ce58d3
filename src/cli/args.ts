// Flags of the CLI's own subcommands (the settings' flags are read by src/config).

/** A wrong command line: printed with the usage, exit code 2. */
export class UsageError extends Error {}

/**
 * The subcommand, one of `known`; otherwise a usage error that says what to type (a missing one is not "unknown
 * subcommand undefined").
 */
export function subcommand<T extends string>(command: string, sub: string | undefined, known: readonly T[]): T {
  const list = known.length === 1 ? known[0]! : `${known.slice(0, -1).join(', ')} or ${known.at(-1)!}`;
  if (sub === undefined || sub.startsWith('-')) throw new UsageError(`${command}: name a subcommand: ${list}`);
  if (!(known as readonly string[]).includes(sub)) {
    throw new UsageError(`${command}: unknown subcommand ${JSON.stringify(sub)} (${list})`);
  }
  return sub as T;
}

/** Removes `name value` or `name=value` from `args` and returns the value. */
export function takeFlag(args: string[], name: string): string | undefined {
  const i = args.findIndex((a) => a === name || a.startsWith(`${name}=`));
  if (i < 0) return undefined;
  const [flag] = args.splice(i, 1) as [string];
  if (flag.includes('=')) return flag.slice(flag.indexOf('=') + 1);
  const v = args.splice(i, 1)[0];
  if (v === undefined) throw new UsageError(`${name} needs a value`);
  return v;
}

/** What a command reads and writes; the CLI passes the process's, tests their own. */
export interface CliIo {
  out(line: string): void;
  err(line: string): void;
  /** Standard input, whole. */
  readStdin(): Promise<string>;
  fetch: typeof fetch;
}

export const processIo: CliIo = {
  out: (line) => console.log(line),
  err: (line) => console.error(line),
  async readStdin() {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  },
  fetch: (...a) => fetch(...a),
};
