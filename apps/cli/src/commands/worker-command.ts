// strata worker --slot N: one worker process of the run service.
import { parseCommandArguments, positiveInteger } from '../cli-arguments.js';
import { CliInputError } from '../cli-input-error.js';
import { usageOf } from '../cli-help.js';
import type { CliIo } from '../cli-io.js';
import { loadServiceCatalog, stopRequested } from './service-catalog-loader.js';

/**
 * Runs queued runs until SIGTERM or Ctrl-C. Many machines: run one
 * `strata worker --slot N` per process under any process manager, every one
 * with the same STRATA_SERVICE_DATABASE_URL and the same application version,
 * each slot unique across machines, and restart a dead one under its slot
 * (that is how its unfinished runs are recovered).
 */
/** The options `strata worker` parses; its help (COMMAND_HELP.worker) documents each. */
export const WORKER_OPTIONS = Object.freeze({ slot: { type: 'string' }, concurrency: { type: 'string' }, catalog: { type: 'string' } } as const);

export async function workerCommand(args: readonly string[], io: CliIo): Promise<number> {
  const { values } = parseCommandArguments('strata worker', args, WORKER_OPTIONS);
  if (values.slot === undefined) throw new CliInputError({ culprit: '--slot', message: `strata worker: --slot is required; usage: ${usageOf('worker')}` });
  const slot = positiveInteger(values.slot, '--slot', 1);
  const { serviceDatabaseFromEnvironment, startWorker, WORKER_CONCURRENCY } = await import('@strata/service');
  const worker = await startWorker({
    database: serviceDatabaseFromEnvironment(io.env),
    slot,
    concurrency: positiveInteger(values.concurrency, '--concurrency', WORKER_CONCURRENCY),
    catalog: await loadServiceCatalog(values.catalog, io),
    applicationVersion: io.env.STRATA_SERVICE_APPLICATION_VERSION?.trim() || undefined,
  });
  io.stderr.write(`strata worker: ${worker.executorId} is taking runs\n`);
  await stopRequested(io);
  await worker.close();
  return 0;
}
