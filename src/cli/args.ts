// Flags of the CLI's own subcommands (the settings' flags are read by src/config).

/** A wrong command line: printed with the usage, exit code 2. */
export class UsageError extends Error {}

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
