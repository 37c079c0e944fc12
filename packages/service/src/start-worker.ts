import { DBOS } from '@dbos-inc/dbos-sdk';
import type { Timers } from '@strata/agent';
import { createPostgresStores, type ToolOutputIdMaker } from '@strata/store';
import pg from 'pg';
import { CancelWatch } from './cancel-watch.js';
import { RunLog } from './run-log.js';
import { registerRunWorkflows, RUN_QUEUE_NAME } from './run-workflows.js';
import type { ServiceCatalog } from './service-catalog.js';
import { resolveServiceDatabase, SERVICE_APPLICATION_NAME, SERVICE_APPLICATION_VERSION, type ServiceDatabase } from './service-database.js';

/** Default runs one worker process runs at once. */
export const WORKER_CONCURRENCY = 4;

export interface WorkerOptions {
  readonly database: ServiceDatabase;
  /**
   * This process's slot, 1 or more: its DBOS executor id is `worker-<slot>`.
   * One process per slot at a time; a dead slot is restarted under the same
   * slot, which recovers the runs it held (no live worker takes over
   * another's runs).
   */
  readonly slot: number;
  readonly catalog: ServiceCatalog;
  /** Default `WORKER_CONCURRENCY`. */
  readonly concurrency?: number;
  /** Default `SERVICE_APPLICATION_VERSION`; the same on every worker. */
  readonly applicationVersion?: string;
  /** How often running turns look for a cancel. Default `CANCEL_POLL_MS`. */
  readonly cancelPollMs?: number;
  /** A failed event or trace write (the run goes on). Default: printed to stderr. */
  readonly onLogError?: (error: unknown) => void;
  /** The clock and timers of run deadlines (tests give a virtual one). Default: Node's timers and `performance.now`. */
  readonly clock?: { readonly now: () => number; readonly timers: Timers };
  /** The tool-output store's reference ids. Default: `newToolOutputId` (time-ordered, random); `derivedToolOutputId` makes them a function of the run and call. */
  readonly newToolOutputId?: ToolOutputIdMaker;
}

export interface Worker {
  readonly executorId: string;
  /** Stops taking runs and disconnects; runs in progress are recovered when the slot starts again. */
  close(): Promise<void>;
}

/**
 * Starts one worker in this process: registers the run workflows, launches
 * DBOS under the slot's executor id (recovering the slot's unfinished runs),
 * and takes queued runs, at most `concurrency` at once. DBOS is a
 * per-process singleton: one worker per process.
 */
export async function startWorker(options: WorkerOptions): Promise<Worker> {
  if (!Number.isInteger(options.slot) || options.slot < 1) throw new RangeError(`a worker slot is a positive integer, not ${options.slot}`);
  const database = resolveServiceDatabase(options.database);
  const executorId = `worker-${options.slot}`;
  const stores = createPostgresStores({ connectionString: database.url, schema: database.storeSchema, newToolOutputId: options.newToolOutputId });
  const pool = new pg.Pool({ connectionString: database.url, max: 4 });
  pool.on('error', () => undefined);
  const runLog = new RunLog({ pool, schema: database.serviceSchema });
  const cancelWatch = new CancelWatch({ pollMs: options.cancelPollMs });
  registerRunWorkflows({
    catalog: options.catalog,
    sessionStore: stores.sessions,
    outputStore: stores.toolOutputs,
    runLog,
    watchCancel: (runId) => cancelWatch.watch(runId),
    clock: options.clock,
    onLogError: options.onLogError ?? ((error) => process.stderr.write(`strata worker ${executorId}: run log write failed: ${String(error)}\n`)),
  });
  DBOS.setConfig({
    name: SERVICE_APPLICATION_NAME,
    systemDatabaseUrl: database.url,
    systemDatabaseSchemaName: database.systemSchema,
    applicationVersion: options.applicationVersion ?? SERVICE_APPLICATION_VERSION,
    executorID: executorId,
    runMigrations: false,
    listenQueues: [RUN_QUEUE_NAME],
    logLevel: 'warn',
  });
  await DBOS.launch();
  await DBOS.registerQueue(RUN_QUEUE_NAME, { workerConcurrency: options.concurrency ?? WORKER_CONCURRENCY });
  return {
    executorId,
    async close() {
      cancelWatch.close();
      await DBOS.shutdown();
      await stores.close();
      await pool.end();
    },
  };
}
