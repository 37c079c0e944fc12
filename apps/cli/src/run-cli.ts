import { StrataError } from '@strata/context';
import { CliInputError } from './cli-input-error.js';
import type { CliIo } from './cli-io.js';
import { COMMAND_HELP, helpOf, helpRequest, helpText, overviewText, strataVersion, type CommandName } from './cli-help.js';
import { examplesCommand } from './commands/examples-command.js';
import { replayCommand } from './commands/replay-command.js';
import { runCommand } from './commands/run-command.js';
import { traceCommand } from './commands/trace-command.js';
import { migrateCommand } from './commands/migrate-command.js';
import { serveCommand } from './commands/serve-command.js';
import { workerCommand } from './commands/worker-command.js';

/** `strata --help`. */
export const USAGE = overviewText();

/** Each command by name: the same names as COMMAND_HELP, so none lacks its help. */
const COMMANDS: Readonly<Record<CommandName, (args: readonly string[], io: CliIo) => Promise<number>>> = Object.freeze({
  examples: examplesCommand,
  replay: replayCommand,
  run: runCommand,
  trace: traceCommand,
  serve: serveCommand,
  worker: workerCommand,
  migrate: migrateCommand,
});

/**
 * Runs one command; resolves to the exit code. Bad input (a `StrataError` of
 * kind input or configuration) is one line on stderr and exit code 2; any
 * other failure is one line too, exit code 1, with the stack only when
 * STRATA_DEBUG=1.
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const [command, ...args] = argv;
  try {
    const request = helpRequest(argv);
    if (request?.kind === 'version') {
      io.stdout.write(`strata ${strataVersion()}\n`);
      return 0;
    }
    if (request?.kind === 'help') {
      if (request.path.length === 0) {
        io.stdout.write(USAGE);
        return 0;
      }
      const help = helpOf(request.path);
      if (help === undefined) throw unknownCommand(request.path[0]!);
      io.stdout.write(helpText(help));
      return 0;
    }
    if (command === undefined) {
      io.stdout.write(USAGE);
      return 2;
    }
    if (!Object.hasOwn(COMMANDS, command)) throw unknownCommand(command);
    return await COMMANDS[command as CommandName](args, io);
  } catch (error) {
    const input = CliInputError.isInstance(error) || (StrataError.isInstance(error) && (error.kind === 'input' || error.kind === 'configuration'));
    const line = oneLine(error);
    io.stderr.write(line.startsWith('strata ') ? `${line}\n` : `strata: ${line}\n`);
    if (!input && io.env.STRATA_DEBUG === '1' && error instanceof Error && error.stack) io.stderr.write(`${error.stack}\n`);
    return input ? 2 : 1;
  }
}

function oneLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.split('\n')[0]!.trim() || 'failed';
}

function unknownCommand(command: string): CliInputError {
  return new CliInputError({ culprit: command, message: `unknown command "${command}"; run strata --help (commands: ${Object.keys(COMMAND_HELP).join(', ')})` });
}
