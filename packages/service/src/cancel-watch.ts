import { DBOS } from '@dbos-inc/dbos-sdk';

/** Default: a cancel reaches a running step within half a second. */
export const CANCEL_POLL_MS = 500;

export interface CancelWatchOptions {
  /** How often the runs in progress here are checked. Default `CANCEL_POLL_MS`. */
  readonly pollMs?: number;
  /** The run's status; default DBOS's own record. */
  readonly status?: (runId: string) => Promise<string | undefined>;
  readonly setInterval?: (callback: () => void, ms: number) => { unref?(): void };
  readonly clearInterval?: (handle: unknown) => void;
}

/**
 * Carries a cancel (`POST /runs/:id/cancel` marks the run's workflows
 * CANCELLED from another process) into the steps running here: each running
 * turn holds a signal that fires once its run's workflow is CANCELLED, so
 * the model stream or tool in progress is aborted and the agent stops after
 * that step, storing it closed.
 */
export class CancelWatch {
  readonly #watched = new Map<string, Set<AbortController>>();
  readonly #status: (runId: string) => Promise<string | undefined>;
  readonly #timer: unknown;
  readonly #clear: (handle: unknown) => void;
  #checking = false;

  constructor(options: CancelWatchOptions = {}) {
    this.#status = options.status ?? (async (runId) => (await DBOS.getWorkflowStatus(runId))?.status);
    const every = options.setInterval ?? setInterval;
    this.#clear = options.clearInterval ?? ((handle) => clearInterval(handle as NodeJS.Timeout));
    const timer = every(() => void this.check(), options.pollMs ?? CANCEL_POLL_MS);
    timer.unref?.();
    this.#timer = timer;
  }

  watch(runId: string): { readonly signal: AbortSignal; release(): void } {
    const controller = new AbortController();
    const set = this.#watched.get(runId) ?? new Set();
    set.add(controller);
    this.#watched.set(runId, set);
    return {
      signal: controller.signal,
      release: () => {
        set.delete(controller);
        if (set.size === 0 && this.#watched.get(runId) === set) this.#watched.delete(runId);
      },
    };
  }

  /** One pass over the watched runs (the timer calls it; tests call it directly). */
  async check(): Promise<void> {
    if (this.#checking) return;
    this.#checking = true;
    try {
      for (const [runId, controllers] of [...this.#watched]) {
        const status = await this.#status(runId).catch(() => undefined);
        if (status !== 'CANCELLED') continue;
        for (const controller of controllers) controller.abort(new Error(`run ${runId} was cancelled`));
      }
    } finally {
      this.#checking = false;
    }
  }

  close(): void {
    this.#clear(this.#timer);
  }
}
