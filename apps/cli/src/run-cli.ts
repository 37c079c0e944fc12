import { StrataError } from '@strata/context';
import { CliInputError } from './cli-input-error.js';
import type { CliIo } from './cli-io.js';
import { examplesCommand } from './commands/examples-command.js';
import { replayCommand, REPLAY_USAGE } from './commands/replay-command.js';
import { runCommand, RUN_USAGE } from './commands/run-command.js';
import { traceCommand, TRACE_USAGE } from './commands/trace-command.js';
import { migrateCommand, MIGRATE_USAGE } from './commands/migrate-command.js';
import { serveCommand, SERVE_USAGE } from './commands/serve-command.js';
import { workerCommand, WORKER_USAGE } from './commands/worker-command.js';

export const USAGE = [
  'usage: strata <command> [options]',
  '',
  '  strata examples [--out DIR]          run the three reproducible examples (scripted model, no network), write traces and the viewer',
  `  ${REPLAY_USAGE}`,
  `  ${RUN_USAGE}`,
  ...TRACE_USAGE.map((line) => `  ${line}`),
  `  ${SERVE_USAGE}`,
  `  ${WORKER_USAGE}`,
  `  ${MIGRATE_USAGE}`,
  '',
].join('\n');

/**
 * Runs one command; resolves to the exit code. Bad input (a `StrataError` of
 * kind input or configuration) is one line on stderr and exit code 2; any
 * other failure is one line too, exit code 1, with the stack only when
 * STRATA_DEBUG=1.
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const [command, ...args] = argv;
  try {
    switch (command) {
      case 'examples':
        return await examplesCommand(args, io);
      case 'replay':
        return await replayCommand(args, io);
      case 'run':
        return await runCommand(args, io);
      case 'trace':
        return await traceCommand(args, io);
      case 'serve':
        return await serveCommand(args, io);
      case 'worker':
        return await workerCommand(args, io);
      case 'migrate':
        return await migrateCommand(args, io);
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        io.stdout.write(USAGE);
        return command === undefined ? 2 : 0;
      default:
        throw new CliInputError({ culprit: command, message: `unknown command "${command}"; run strata --help` });
    }
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
