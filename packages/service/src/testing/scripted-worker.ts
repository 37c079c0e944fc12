/**
 * A worker process over the scripted catalog, for the service's tests and
 * benchmark: `node dist/testing/scripted-worker.js` with
 * STRATA_SERVICE_DATABASE_URL, STRATA_SERVICE_SYSTEM_SCHEMA,
 * STRATA_SERVICE_STORE_SCHEMA, STRATA_SERVICE_SCHEMA, STRATA_WORKER_SLOT,
 * STRATA_TEST_EFFECTS_SCHEMA and STRATA_TEST_TOOL_DELAY_MS (and
 * STRATA_TEST_WINDOW_TOKENS, every run's window; STRATA_TEST_DERIVED_OUTPUT_IDS=1,
 * reference ids from the run and call). With
 * STRATA_TEST_MODEL_CALL_MS, run deadlines are on a virtual clock that each
 * model call moves that far; STRATA_TEST_LEAKS (JSON, `ScriptedLeaks`) is
 * what the `leaks` profile prints and quotes. Prints `ready` once it takes runs; SIGTERM
 * stops it.
 */
import { derivedToolOutputId } from '@strata/store';
import pg from 'pg';
import { serviceDatabaseFromEnvironment } from '../service-database.js';
import { startWorker } from '../start-worker.js';
import { createScriptedCatalog, type ScriptedLeaks } from './scripted-catalog.js';
import { VirtualClock } from './virtual-clock.js';

const env = process.env;
const modelCallMs = env.STRATA_TEST_MODEL_CALL_MS === undefined ? undefined : Number(env.STRATA_TEST_MODEL_CALL_MS);
const clock = modelCallMs === undefined ? undefined : new VirtualClock();
const pool = new pg.Pool({ connectionString: env.STRATA_SERVICE_DATABASE_URL, max: 4 });
pool.on('error', () => undefined);
const worker = await startWorker({
  database: serviceDatabaseFromEnvironment(env),
  slot: Number(env.STRATA_WORKER_SLOT),
  concurrency: Number(env.STRATA_WORKER_CONCURRENCY ?? 8),
  cancelPollMs: 100,
  catalog: createScriptedCatalog({ pool, schema: env.STRATA_TEST_EFFECTS_SCHEMA ?? 'strata_test_effects', toolDelayMs: Number(env.STRATA_TEST_TOOL_DELAY_MS ?? 0), clock, modelCallMs, windowTokens: env.STRATA_TEST_WINDOW_TOKENS === undefined ? undefined : Number(env.STRATA_TEST_WINDOW_TOKENS), leaks: env.STRATA_TEST_LEAKS === undefined ? undefined : (JSON.parse(env.STRATA_TEST_LEAKS) as ScriptedLeaks) }),
  clock,
  // Reference ids from the run and call, so a test can compare the service's inputs with another process's byte for byte.
  newToolOutputId: env.STRATA_TEST_DERIVED_OUTPUT_IDS === '1' ? derivedToolOutputId : undefined,
});
process.stdout.write(`ready ${worker.executorId} ${process.pid}\n`);
process.once('SIGTERM', () => {
  void worker.close().then(() => pool.end()).then(() => process.exit(0));
});
