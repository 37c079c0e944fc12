// Every command of `strata`: its help beside the function that runs it.
import { COMMAND_HELP, type CommandHelp, type HelpTable } from './cli-help.js';
import type { CliIo } from './cli-io.js';
import { examplesCommand } from './commands/examples-command.js';
import { gatewayCommand } from './commands/gateway-command.js';
import { migrateCommand } from './commands/migrate-command.js';
import { replayCommand } from './commands/replay-command.js';
import { runCommand } from './commands/run-command.js';
import { serveCommand } from './commands/serve-command.js';
import { traceCommand } from './commands/trace-command.js';
import { workerCommand } from './commands/worker-command.js';

/** One command: what `--help` prints for it (and its subcommands), and what runs it; resolves to the exit code. */
export interface CliCommand {
  readonly help: CommandHelp;
  readonly run: (args: readonly string[], io: CliIo) => Promise<number>;
}

/** Commands by name, in the order `strata --help` lists them. */
export type CliCommands = Readonly<Record<string, CliCommand>>;

/**
 * The commands `strata` has. A new command is one entry here (its help
 * beside its code, e.g. `gateway: { help: COMMAND_HELP.gateway, run: gatewayCommand }`):
 * `--help`, `--version`, `strata help <command>` and the overview then
 * cover it with nothing else to change.
 */
export const CLI_COMMANDS: CliCommands = Object.freeze({
  examples: { help: COMMAND_HELP.examples, run: examplesCommand },
  replay: { help: COMMAND_HELP.replay, run: replayCommand },
  run: { help: COMMAND_HELP.run, run: runCommand },
  trace: { help: COMMAND_HELP.trace, run: traceCommand },
  serve: { help: COMMAND_HELP.serve, run: serveCommand },
  worker: { help: COMMAND_HELP.worker, run: workerCommand },
  migrate: { help: COMMAND_HELP.migrate, run: migrateCommand },
  gateway: { help: COMMAND_HELP.gateway, run: gatewayCommand },
});

/** The help of each command of `commands`, by name, in their order. */
export function helpTableOf(commands: CliCommands): HelpTable {
  return Object.freeze(Object.fromEntries(Object.entries(commands).map(([name, command]) => [name, command.help])));
}
