import pg from 'pg';
import { redactCredentials, type TraceSink } from '@strata/context';

/** One event of a run as the API serves it: the agent's events and the service's own (`run-finished`). */
export interface RunLogEvent {
  /** Position in the run's event order, strictly increasing; the SSE `id`. */
  readonly sequence: number;
  readonly event: { readonly type: string; readonly [key: string]: unknown };
}

/**
 * The part of a `pg.Pool` the run log uses; a real pool fits. Declared here so
 * the package's declarations name no type from `pg` (whose types, `@types/pg`,
 * a consumer need not install).
 */
export interface RunLogPool {
  query<Row = Record<string, unknown>>(text: string, values?: unknown[]): Promise<{ readonly rows: Row[] }>;
}

export interface RunLogOptions {
  readonly pool: RunLogPool;
  /** Schema of the service's tables. Default `public`. */
  readonly schema?: string;
}

/**
 * The run service's own tables: each run's events (what `GET /runs/:id/events`
 * streams) and its per-turn context traces (`GET /runs/:id/traces`, and the
 * trace sink the agent writes to). Events are at least once: a step that runs
 * again after a crash may repeat its events, never lose them.
 */
export class RunLog {
  readonly #pool: RunLogPool;
  readonly #events: string;
  readonly #traces: string;
  readonly #schema: string;
  /** Appends of one run go out in the order they were made. */
  readonly #pending = new Map<string, Promise<void>>();

  constructor(options: RunLogOptions) {
    this.#pool = options.pool;
    this.#schema = pg.escapeIdentifier(options.schema ?? 'public');
    this.#events = `${this.#schema}.strata_run_events`;
    this.#traces = `${this.#schema}.strata_run_traces`;
  }

  /** Creates the tables; run by `strata migrate`, never by a worker. */
  async migrate(): Promise<void> {
    await this.#pool.query(`CREATE SCHEMA IF NOT EXISTS ${this.#schema}`);
    await this.#pool.query(`CREATE TABLE IF NOT EXISTS ${this.#events} (
      sequence bigserial PRIMARY KEY,
      run_id text NOT NULL,
      event jsonb NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    )`);
    await this.#pool.query(`CREATE INDEX IF NOT EXISTS strata_run_events_run ON ${this.#events} (run_id, sequence)`);
    await this.#pool.query(`CREATE TABLE IF NOT EXISTS ${this.#traces} (
      run_id text NOT NULL,
      turn integer NOT NULL,
      recovery_attempt integer NOT NULL,
      body jsonb NOT NULL,
      PRIMARY KEY (run_id, turn, recovery_attempt)
    )`);
  }

  /**
   * Queues one event; appends of a run are written in call order. Never
   * throws: a failed write is reported to `onError` and the run goes on.
   * Every string of the event is redacted of credentials first (a service
   * error's message, anything the boundaries before missed): what the API
   * and its SSE stream serve is what is stored.
   */
  append(runId: string, event: RunLogEvent['event'], onError: (error: unknown) => void = () => undefined): Promise<void> {
    const previous = this.#pending.get(runId) ?? Promise.resolve();
    const next = previous
      .then(() => this.#pool.query(`INSERT INTO ${this.#events} (run_id, event) VALUES ($1, $2)`, [runId, redactedJson(event)]))
      .then(() => undefined, onError);
    this.#pending.set(runId, next);
    void next.then(() => {
      if (this.#pending.get(runId) === next) this.#pending.delete(runId);
    });
    return next;
  }

  /** Waits until every queued append of the run is written. */
  async flush(runId: string): Promise<void> {
    await this.#pending.get(runId);
  }

  /** The run's events after `afterSequence`, oldest first. */
  async events(runId: string, options: { readonly afterSequence?: number; readonly limit?: number } = {}): Promise<RunLogEvent[]> {
    const rows = await this.#pool.query<{ sequence: string; event: RunLogEvent['event'] }>(
      `SELECT sequence, event FROM ${this.#events} WHERE run_id = $1 AND sequence > $2 ORDER BY sequence LIMIT $3`,
      [runId, options.afterSequence ?? 0, options.limit ?? 1_000],
    );
    return rows.rows.map((row) => ({ sequence: Number(row.sequence), event: row.event }));
  }

  /** The run's context traces, by turn then recovery attempt. */
  async traces(runId: string): Promise<{ turn: number; recoveryAttempt: number; body: unknown }[]> {
    const rows = await this.#pool.query<{ turn: number; recovery_attempt: number; body: unknown }>(
      `SELECT turn, recovery_attempt, body FROM ${this.#traces} WHERE run_id = $1 ORDER BY turn, recovery_attempt`,
      [runId],
    );
    return rows.rows.map((row) => ({ turn: row.turn, recoveryAttempt: row.recovery_attempt, body: row.body }));
  }

  /** The agent's trace sink: one document per (run, turn, recovery attempt); a turn assembled again after a crash replaces its document. Its strings are redacted of credentials before they are stored. */
  traceSink(): TraceSink {
    return {
      write: async (document) => {
        await this.#pool.query(
          `INSERT INTO ${this.#traces} (run_id, turn, recovery_attempt, body) VALUES ($1, $2, $3, $4)
           ON CONFLICT (run_id, turn, recovery_attempt) DO UPDATE SET body = excluded.body`,
          [document.contextId, document.turn, document.recoveryAttempt ?? 0, redactedJson(document.body)],
        );
      },
      lastTurn: async (contextId) => {
        const row = (await this.#pool.query<{ turn: number | null }>(`SELECT max(turn) AS turn FROM ${this.#traces} WHERE run_id = $1`, [contextId])).rows[0];
        return row?.turn ?? 0;
      },
    };
  }
}

/** The value as JSON with every string value redacted of credentials (keys are kept). */
function redactedJson(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) => (typeof item === 'string' ? redactCredentials(item).text : item));
}
