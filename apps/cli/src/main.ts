#!/usr/bin/env node
// The `strata` executable: runs one command, prints a one-line error on bad input.
import { processIo } from './cli-io.js';
import { runCli } from './run-cli.js';

const controller = new AbortController();
// The first Ctrl-C cancels the command cleanly (a live run still writes its trace); a second one exits at once.
process.once('SIGINT', () => {
  controller.abort(new Error('interrupted (Ctrl-C)'));
  process.once('SIGINT', () => process.exit(130));
});
process.exitCode = await runCli(process.argv.slice(2), processIo(controller.signal));
