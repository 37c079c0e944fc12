// The run service under load (a benchmark, not a test): 200 scripted runs on 2 worker slots over
// PostgreSQL, against the same runs in process. Needs STRATA_TEST_POSTGRES_URL (skipped without it).
// Step overhead: the gap between one step's start and the next step's start within a run
// (model turn -> tool -> model turn ...), service against in process; both record step starts in
// the same kind of PostgreSQL table, so the difference is what durable workflows add per step.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createAgentRun } from '@strata/agent';
import type { ToolDefinition } from '@strata/context';
import { createMemoryStores } from '@strata/store';
// The service's test helpers are not published (nor exported): imported from the workspace's build.
import { createEffectTables, createScriptedCatalog, ServiceHarness } from '../../packages/service/dist/testing/index.js';
import { ToolRegistry } from '@strata/tools';
import pg from 'pg';
import { percentile, table } from './measure.js';

const RUNS = 200;
const WORKERS = 2;
const CONCURRENCY_PER_WORKER = 8;
const STEPS_PER_RUN = 2;

export async function run(): Promise<void> {
  const url = process.env.STRATA_TEST_POSTGRES_URL;
  if (!url) {
    console.log('# notice: service benchmark skipped: STRATA_TEST_POSTGRES_URL is not set');
    return;
  }
  const harness = new ServiceHarness({ url, workers: WORKERS, concurrency: CONCURRENCY_PER_WORKER });
  await harness.start();
  let service: { seconds: number; gaps: number[]; rssMiB: number[]; peakMiB: number[] };
  try {
    const started = performance.now();
    const runIds = await Promise.all(Array.from({ length: RUNS }, (_, index) => harness.createRun('steps', `steps b${index + 1} ${STEPS_PER_RUN}`)));
    await harness.waitFor(
      async () => Number((await harness.query<{ count: string }>(`SELECT count(DISTINCT run_id) AS count FROM "${harness.database.serviceSchema}".strata_run_events WHERE event->>'type' = 'run-finished'`))[0]!.count) >= RUNS,
      { timeoutMs: 900_000, what: `${RUNS} runs finished` },
    );
    const seconds = (performance.now() - started) / 1_000;
    const failed = (await Promise.all(runIds.slice(0, 20).map((runId) => harness.run(runId)))).filter((summary) => summary.status !== 'succeeded');
    if (failed.length > 0) throw new Error(`runs failed: ${failed.map((summary) => `${summary.id} ${summary.status}`).join(', ')}`);
    const memory = [...harness.ready.values()].map(readMemory);
    service = { seconds, gaps: await stepGaps(harness.pool, `${harness.prefix}_fx`), rssMiB: memory.map((entry) => entry.rss), peakMiB: memory.map((entry) => entry.peak) };
  } finally {
    await harness.stop();
  }

  const inProcess = await runInProcess(url);
  const rows = [
    { where: 'service (2 workers)', runs: RUNS, seconds: round(service.seconds), 'runs/s': round(RUNS / service.seconds), 'step p50 ms': round(percentile(service.gaps, 0.5)), 'step p99 ms': round(percentile(service.gaps, 0.99)) },
    { where: 'in process', runs: RUNS, seconds: round(inProcess.seconds), 'runs/s': round(RUNS / inProcess.seconds), 'step p50 ms': round(percentile(inProcess.gaps, 0.5)), 'step p99 ms': round(percentile(inProcess.gaps, 0.99)) },
  ];
  table(rows);
  const overhead = { p50: round(percentile(service.gaps, 0.5) - percentile(inProcess.gaps, 0.5)), p99: round(percentile(service.gaps, 0.99) - percentile(inProcess.gaps, 0.99)) };
  console.log(`step overhead of the service: p50 ${overhead.p50} ms, p99 ${overhead.p99} ms; worker RSS at the end ${service.rssMiB.join(', ')} MiB, peak ${service.peakMiB.join(', ')} MiB`);
  const results = join(dirname(fileURLToPath(import.meta.url)), '..', 'results');
  mkdirSync(results, { recursive: true });
  writeFileSync(
    join(results, 'service.json'),
    `${JSON.stringify({ runs: RUNS, workers: WORKERS, concurrencyPerWorker: CONCURRENCY_PER_WORKER, stepsPerRun: STEPS_PER_RUN * 2 + 1, rows, stepOverheadMs: overhead, workerRssMiB: service.rssMiB, workerPeakRssMiB: service.peakMiB, node: process.version, cpus: cpus().length, loadAverage1m: round(loadavg()[0]!) }, null, 2)}\n`,
  );
}

/** The same 200 runs through createAgentRun in this process, with memory stores, at the same total concurrency. */
async function runInProcess(url: string): Promise<{ seconds: number; gaps: number[] }> {
  const pool = new pg.Pool({ connectionString: url, max: 8 });
  const schema = `svc_inproc_${process.pid}`;
  await createEffectTables(pool, schema);
  try {
    const catalog = createScriptedCatalog({ pool, schema });
    const entry = catalog.profiles.steps!;
    const stores = createMemoryStores();
    const started = performance.now();
    let next = 0;
    const lane = async () => {
      while (next < RUNS) {
        next += 1;
        const runId = `inproc_${next}`;
        const tools = new ToolRegistry();
        for (const tool of entry.tools ?? []) {
          const definition: ToolDefinition = { ...tool, execute: (input, context) => tool.execute(input, { ...context, idempotencyKey: `${context.contextId}/${context.toolCallId}` }) };
          tools.register(definition);
        }
        const agentRun = createAgentRun(entry.profile, { model: catalog.model('scripted-service'), tools, outputStore: stores.toolOutputs, sessionStore: stores.sessions, configuration: catalog.configuration }, { contextId: runId, prompt: `steps i${next} ${STEPS_PER_RUN}` });
        const result = await agentRun.execute();
        if (result.stopReason !== 'completed') throw new Error(`${runId} stopped: ${result.stopReason}`);
      }
    };
    await Promise.all(Array.from({ length: WORKERS * CONCURRENCY_PER_WORKER }, lane));
    return { seconds: (performance.now() - started) / 1_000, gaps: await stepGaps(pool, schema) };
  } finally {
    await pool.query(`DROP SCHEMA IF EXISTS ${pg.escapeIdentifier(schema)} CASCADE`);
    await pool.end();
  }
}

/** Milliseconds between consecutive step starts of each run (model turns are keyed `<tag>:<turn>`, tools `<run>/call_<tag>_<n>`). */
async function stepGaps(pool: pg.Pool, schema: string): Promise<number[]> {
  const rows = (await pool.query<{ key: string; at: Date; micros: string }>(`SELECT key, at, (extract(epoch FROM at) * 1000000)::bigint AS micros FROM ${pg.escapeIdentifier(schema)}.attempts ORDER BY at`)).rows;
  const byRun = new Map<string, number[]>();
  for (const row of rows) {
    const tag = row.key.includes('/call_') ? row.key.split('/call_')[1]!.split('_')[0]! : row.key.split(':')[0]!;
    byRun.set(tag, [...(byRun.get(tag) ?? []), Number(row.micros) / 1_000]);
  }
  const gaps: number[] = [];
  for (const times of byRun.values()) for (let index = 1; index < times.length; index += 1) gaps.push(times[index]! - times[index - 1]!);
  return gaps;
}

function readMemory(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name: string) => Math.round(Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0) / 1024);
  return { rss: field('VmRSS'), peak: field('VmHWM') };
}

function round(value: number): number {
  return Math.round(value * 10) / 10;
}
