import type { ChildProcess } from 'node:child_process';

/** Default wait before a dead slot is started again. */
export const RESTART_DELAY_MS = 1_000;

export type SupervisorEvent =
  | { readonly type: 'worker-started'; readonly slot: number; readonly pid: number | undefined }
  /** `restarting`: false once `stop()` was called. */
  | { readonly type: 'worker-exited'; readonly slot: number; readonly code: number | null; readonly signal: NodeJS.Signals | null; readonly restarting: boolean };

export interface SupervisorOptions {
  /** Slots 1..workers are kept running. */
  readonly workers: number;
  /** Starts the worker process of a slot (`strata worker --slot <slot>`). */
  readonly spawn: (slot: number) => ChildProcess;
  /** Default `RESTART_DELAY_MS`. */
  readonly restartDelayMs?: number;
  readonly onEvent?: (event: SupervisorEvent) => void;
  readonly setTimeout?: (callback: () => void, ms: number) => unknown;
}

export interface Supervisor {
  /** The live process of each slot. */
  readonly workers: ReadonlyMap<number, ChildProcess>;
  /** Stops restarting and sends SIGTERM to every worker; resolves when all have exited. */
  stop(): Promise<void>;
}

/**
 * Keeps N worker slots alive on this machine: a worker that exits (crash,
 * `kill -9`) is started again under the same slot, so it recovers the runs
 * it held (DBOS recovers a slot's runs only under its executor id).
 */
export function superviseWorkers(options: SupervisorOptions): Supervisor {
  const workers = new Map<number, ChildProcess>();
  const later = options.setTimeout ?? ((callback: () => void, ms: number) => setTimeout(callback, ms));
  let stopping = false;

  const start = (slot: number): void => {
    const child = options.spawn(slot);
    workers.set(slot, child);
    options.onEvent?.({ type: 'worker-started', slot, pid: child.pid });
    child.once('exit', (code, signal) => {
      if (workers.get(slot) === child) workers.delete(slot);
      options.onEvent?.({ type: 'worker-exited', slot, code, signal, restarting: !stopping });
      if (!stopping) later(() => !stopping && start(slot), options.restartDelayMs ?? RESTART_DELAY_MS);
    });
  };
  for (let slot = 1; slot <= options.workers; slot += 1) start(slot);

  return {
    workers,
    async stop() {
      stopping = true;
      await Promise.all(
        [...workers.values()].map(
          (child) =>
            new Promise<void>((resolve) => {
              if (child.exitCode !== null || child.signalCode !== null) return resolve();
              child.once('exit', () => resolve());
              child.kill('SIGTERM');
            }),
        ),
      );
    },
  };
}
