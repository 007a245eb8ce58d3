#!/usr/bin/env node
// The credential-vault command: see `credential-vault help`. Node runs the TypeScript sources itself (type
// stripping: the code is erasable-only, tsconfig's erasableSyntaxOnly keeps it so); no loader in production.
if (!process.features.typescript) {
  console.error(`credential-vault needs Node >= 22.18 (TypeScript type stripping); this is Node ${process.version}. Run it with npm start or npx credential-vault, which use the pinned Node 24.`);
  process.exit(1);
}
const { main } = await import('../src/cli.ts');
process.exitCode = await main(process.argv.slice(2));
