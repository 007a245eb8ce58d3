#!/usr/bin/env node
// The credential-vault command: see `credential-vault help`.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli.ts');
process.exitCode = await main(process.argv.slice(2));
