import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { migrateService } from '../migrate-service.js';
import type { RunSummary } from '../run-directory.js';
import { startServiceServer, type ServiceServer } from '../service-server.js';
import { superviseWorkers, type Supervisor, type SupervisorEvent } from '../supervise-workers.js';
import { createEffectTables, type ScriptedLeaks } from './scripted-catalog.js';

const WORKER_SCRIPT = fileURLToPath(new URL('./scripted-worker.js', import.meta.url));

export interface ServiceHarnessOptions {
  readonly url: string;
  readonly workers: number;
  readonly toolDelayMs?: number;
  readonly concurrency?: number;
  readonly maxBodyBytes?: number;
  /** Puts run deadlines on a virtual clock that each model call moves this far (see `createScriptedCatalog`). Default: Node's clock. */
  readonly modelCallMs?: number;
  /** Every run's context window (see `createScriptedCatalog`). Default 32,000 tokens. */
  readonly windowTokens?: number;
  /** Stored-output reference ids from the run and call (`derivedToolOutputId`), the same in any process. Default false. */
  readonly derivedOutputIds?: boolean;
  /** What the `leaks` profile prints and quotes (see `createScriptedCatalog`). */
  readonly leaks?: ScriptedLeaks;
}

/**
 * The whole service on this machine over fresh schemas of one PostgreSQL:
 * migrated, N supervised scripted worker processes, and the API on a free
 * port of 127.0.0.1. For the acceptance tests and the benchmark.
 */
export class ServiceHarness {
  readonly token = `token-${randomBytes(8).toString('hex')}`;
  readonly prefix = `svc_${randomBytes(5).toString('hex')}`;
  readonly pool: pg.Pool;
  readonly supervisorEvents: SupervisorEvent[] = [];
  readonly ready = new Map<number, number>();
  supervisor!: Supervisor;
  server!: ServiceServer;
  readonly #options: ServiceHarnessOptions;
  readonly #readyWaiters: (() => void)[] = [];

  constructor(options: ServiceHarnessOptions) {
    this.#options = options;
    this.pool = new pg.Pool({ connectionString: options.url, max: 4 });
    this.pool.on('error', () => undefined);
  }

  get effects(): string {
    return pg.escapeIdentifier(`${this.prefix}_fx`);
  }

  get database() {
    return { url: this.#options.url, systemSchema: `${this.prefix}_dbos`, storeSchema: `${this.prefix}_store`, serviceSchema: this.prefix };
  }

  async start(): Promise<void> {
    await migrateService({ database: this.database });
    await createEffectTables(this.pool, `${this.prefix}_fx`);
    this.server = await startServiceServer({ database: this.database, token: this.token, profiles: ['steps', 'approvals', 'slow', 'delegates', 'timed', 'logs', 'leaks'], models: ['scripted-service'], port: 0, maxBodyBytes: this.#options.maxBodyBytes });
    this.supervisor = superviseWorkers({
      workers: this.#options.workers,
      restartDelayMs: 200,
      onEvent: (event) => this.supervisorEvents.push(event),
      spawn: (slot) => this.#spawn(slot),
    });
    await this.waitFor(async () => this.ready.size >= this.#options.workers, { timeoutMs: 60_000, what: 'every worker ready' });
  }

  #spawn(slot: number) {
    const child = spawn(process.execPath, [WORKER_SCRIPT], {
      env: {
        ...process.env,
        STRATA_SERVICE_DATABASE_URL: this.#options.url,
        STRATA_SERVICE_SYSTEM_SCHEMA: this.database.systemSchema,
        STRATA_SERVICE_STORE_SCHEMA: this.database.storeSchema,
        STRATA_SERVICE_SCHEMA: this.database.serviceSchema,
        STRATA_WORKER_SLOT: String(slot),
        STRATA_WORKER_CONCURRENCY: String(this.#options.concurrency ?? 8),
        STRATA_TEST_EFFECTS_SCHEMA: `${this.prefix}_fx`,
        STRATA_TEST_TOOL_DELAY_MS: String(this.#options.toolDelayMs ?? 0),
        ...(this.#options.modelCallMs === undefined ? {} : { STRATA_TEST_MODEL_CALL_MS: String(this.#options.modelCallMs) }),
        ...(this.#options.windowTokens === undefined ? {} : { STRATA_TEST_WINDOW_TOKENS: String(this.#options.windowTokens) }),
        ...(this.#options.derivedOutputIds ? { STRATA_TEST_DERIVED_OUTPUT_IDS: '1' } : {}),
        ...(this.#options.leaks === undefined ? {} : { STRATA_TEST_LEAKS: JSON.stringify(this.#options.leaks) }),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.ready.delete(slot);
    child.stdout.on('data', (chunk: Buffer) => {
      if (/^ready /m.test(chunk.toString())) this.ready.set(slot, child.pid!);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      if (process.env.STRATA_TEST_VERBOSE) process.stderr.write(`[worker-${slot}] ${chunk.toString()}`);
    });
    return child;
  }

  async api(path: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    headers.set('authorization', `Bearer ${this.token}`);
    if (init.body !== undefined) headers.set('content-type', 'application/json');
    return fetch(`${this.server.url}${path}`, { ...init, headers });
  }

  async createRun(profile: string, prompt: string): Promise<string> {
    const response = await this.api('/runs', { method: 'POST', body: JSON.stringify({ profile, prompt }) });
    if (response.status !== 202) throw new Error(`POST /runs answered ${response.status}: ${await response.text()}`);
    return ((await response.json()) as { id: string }).id;
  }

  async run(runId: string): Promise<RunSummary> {
    return (await (await this.api(`/runs/${runId}`)).json()) as RunSummary;
  }

  /** Polls a condition (every 50 ms) until it holds; fails naming it after the timeout. */
  async waitFor(condition: () => Promise<boolean>, options: { timeoutMs: number; what: string }): Promise<void> {
    const deadline = Date.now() + options.timeoutMs;
    while (!(await condition())) {
      if (Date.now() > deadline) throw new Error(`timed out after ${options.timeoutMs} ms waiting for ${options.what}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  async query<T extends pg.QueryResultRow>(sql: string, values: unknown[] = []): Promise<T[]> {
    return (await this.pool.query<T>(sql, values)).rows;
  }

  async stop(): Promise<void> {
    await this.supervisor?.stop();
    await this.server?.close();
    for (const schema of [this.database.systemSchema, this.database.storeSchema, this.database.serviceSchema, `${this.prefix}_fx`]) {
      await this.pool.query(`DROP SCHEMA IF EXISTS ${pg.escapeIdentifier(schema)} CASCADE`);
    }
    await this.pool.end();
  }
}
