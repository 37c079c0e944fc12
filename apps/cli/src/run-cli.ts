import { StrataError } from '@strata/context';
import { CliInputError } from './cli-input-error.js';
import type { CliIo } from './cli-io.js';
import { CLI_COMMANDS, helpTableOf, type CliCommands } from './cli-commands.js';
import { helpOf, helpRequest, helpText, overviewText, strataVersion } from './cli-help.js';

/** `strata --help`. */
export const USAGE = overviewText(helpTableOf(CLI_COMMANDS));

export interface RunCliOptions {
  /** The commands to offer. Default `CLI_COMMANDS`; a tool embedding `strata` adds its own (`{ ...CLI_COMMANDS, gateway }`). */
  readonly commands?: CliCommands;
}

/**
 * Runs one command; resolves to the exit code. `--help`/`-h`, `--version`/`-v`
 * and `strata help <command>` are answered for every command of the table
 * (exit 0) before any command parses its options. Bad input (a `StrataError`
 * of kind input or configuration) is one line on stderr and exit code 2; any
 * other failure is one line too, exit code 1, with the stack only when
 * STRATA_DEBUG=1.
 */
export async function runCli(argv: readonly string[], io: CliIo, options: RunCliOptions = {}): Promise<number> {
  const commands = options.commands ?? CLI_COMMANDS;
  const table = helpTableOf(commands);
  const [command, ...args] = argv;
  try {
    const request = helpRequest(argv, table);
    if (request?.kind === 'version') {
      io.stdout.write(`strata ${strataVersion()}\n`);
      return 0;
    }
    if (request?.kind === 'help') {
      if (request.path.length === 0) {
        io.stdout.write(overviewText(table));
        return 0;
      }
      const help = helpOf(table, request.path);
      if (help === undefined) throw unknownCommand(request.path[0]!, commands);
      io.stdout.write(helpText(help));
      return 0;
    }
    if (command === undefined) {
      io.stdout.write(overviewText(table));
      return 2;
    }
    if (!Object.hasOwn(commands, command)) throw unknownCommand(command, commands);
    return await commands[command]!.run(args, io);
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

function unknownCommand(command: string, commands: CliCommands): CliInputError {
  return new CliInputError({ culprit: command, message: `unknown command "${command}"; run strata --help (commands: ${Object.keys(commands).join(', ')})` });
}
