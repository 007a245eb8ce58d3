#!/usr/bin/env node
// The credential-vault command: see `credential-vault help`. Node runs the TypeScript sources itself (type
// stripping: the code is erasable-only, tsconfig's erasableSyntaxOnly keeps it so); no loader in production.
//
// Started by a Node without type stripping (a system Node 20 through `npm link`, a global install or this file's
// path), it runs itself again under the Node 24 the package pins (node_modules/.bin/node, README "Runtime"), in the
// same folder with the same arguments, so the command works from any folder.
if (!process.features.typescript) {
  const { existsSync } = await import('node:fs');
  const { fileURLToPath } = await import('node:url');
  const pinned = fileURLToPath(new URL('../node_modules/.bin/node', import.meta.url));
  // The marker stops a second round should the pinned Node itself lack type stripping.
  if (!existsSync(pinned) || process.env.CREDENTIAL_VAULT_PINNED_NODE) {
    console.error(
      `credential-vault needs Node >= 22.18 (TypeScript type stripping); this is Node ${process.version} without it, ` +
        "and the package's pinned Node 24 is not installed (npm ci in the repository installs it; or install Node 24).",
    );
    process.exit(1);
  }
  const { spawn } = await import('node:child_process');
  const env = { ...process.env, CREDENTIAL_VAULT_PINNED_NODE: '1' };
  const child = spawn(pinned, [fileURLToPath(import.meta.url), ...process.argv.slice(2)], { stdio: 'inherit', env });
  // A TERM or HUP sent to this process is passed on. So is an INT, except while this process group is the
  // terminal's foreground group: then the INT is the terminal's Ctrl-C, which reached the whole group, the child
  // included, and passing it on too would be a second signal, which stops the servers without letting requests
  // finish. A process manager's INT (no terminal) or one sent to a background job is passed on.
  const { terminalForeground } = await import('./foreground.js');
  process.on('SIGINT', () => {
    if (!terminalForeground()) child.kill('SIGINT');
  });
  for (const signal of ['SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
  child.on('error', (e) => {
    console.error(`credential-vault: cannot run ${pinned}: ${e.message}`);
    process.exit(1);
  });
  const numbers = { SIGINT: 2, SIGTERM: 15, SIGHUP: 1, SIGKILL: 9 };
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 128 + (numbers[signal] ?? 1) : 1)));
} else {
  const { main } = await import('../src/cli.ts');
  process.exitCode = await main(process.argv.slice(2));
}
