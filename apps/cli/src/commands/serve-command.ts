// strata serve [--workers N]: the HTTP API and N supervised worker slots on this machine.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseCommandArguments, positiveInteger } from '../cli-arguments.js';
import { CliInputError } from '../cli-input-error.js';
import type { CliIo } from '../cli-io.js';
import { runTraceViewer as traceViewer } from '../viewer/run-trace-viewer.js';
import { loadServiceCatalog, stopRequested } from './service-catalog-loader.js';

const CLI_MAIN = fileURLToPath(new URL('../main.js', import.meta.url));

/** The options `strata serve` parses; its help (COMMAND_HELP.serve) documents each. */
export const SERVE_OPTIONS = Object.freeze({ workers: { type: 'string' }, port: { type: 'string' }, host: { type: 'string' }, catalog: { type: 'string' } } as const);

export async function serveCommand(args: readonly string[], io: CliIo): Promise<number> {
  const { values } = parseCommandArguments('strata serve', args, SERVE_OPTIONS);
  const token = io.env.STRATA_SERVICE_TOKEN?.trim();
  if (!token) throw new CliInputError({ culprit: 'STRATA_SERVICE_TOKEN', message: 'strata serve: STRATA_SERVICE_TOKEN must hold the bearer token every request carries' });
  const workers = positiveInteger(values.workers, '--workers', 2);
  const catalog = await loadServiceCatalog(values.catalog, io);
  const { serviceDatabaseFromEnvironment, startServiceServer, superviseWorkers } = await import('@strata/service');
  const database = serviceDatabaseFromEnvironment(io.env);
  const server = await startServiceServer({
    database,
    token,
    profiles: Object.keys(catalog.profiles),
    models: catalog.models,
    hostname: values.host ?? '127.0.0.1',
    port: values.port === undefined ? undefined : positiveInteger(values.port, '--port', 8787),
    viewer: traceViewer,
  });
  const supervisor = superviseWorkers({
    workers,
    spawn: (slot) =>
      spawn(process.execPath, [CLI_MAIN, 'worker', '--slot', String(slot), ...(values.catalog === undefined ? [] : ['--catalog', values.catalog])], { cwd: io.cwd, env: { ...process.env, ...io.env }, stdio: ['ignore', 'inherit', 'inherit'] }),
    onEvent: (event) => {
      if (event.type === 'worker-exited' && event.restarting) io.stderr.write(`strata serve: worker-${event.slot} exited (${event.signal ?? event.code}); restarting it under its slot\n`);
    },
  });
  io.stderr.write(`strata serve: API on ${server.url}, ${workers} worker slot(s)\n`);
  await stopRequested(io);
  await supervisor.stop();
  await server.close();
  return 0;
}
