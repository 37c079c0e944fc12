/**
 * The run's clocks: total active time, idle time without progress, and
 * external waits (permission, subagents) that pause the total deadline.
 * Exposes one signal that fires on whichever comes first.
 */
export class RunDeadline {
  readonly signal: AbortSignal;
  private readonly controller = new AbortController();
  private readonly options: { runTimeoutMs?: number; idleTimeoutMs?: number; now: () => number; timers: Timers };
  private activeMs = 0;
  private activeSince: number | undefined;
  private waits = 0;
  private runTimer: unknown;
  private idleTimer: unknown;

  constructor(options: { runTimeoutMs?: number; idleTimeoutMs?: number; signal?: AbortSignal; now?: () => number; timers?: Timers }) {
    this.options = { ...options, now: options.now ?? (() => performance.now()), timers: options.timers ?? NODE_TIMERS };
    this.signal = options.signal ? AbortSignal.any([options.signal, this.controller.signal]) : this.controller.signal;
    this.resumeClock();
    this.progress();
  }

  /** Reasons carried by the signal, to tell timeouts from a cancel. */
  static isTimeout(reason: unknown): reason is RunTimeout {
    return reason instanceof RunTimeout;
  }

  /** Marks progress (a model delta, a tool result): restarts the idle timer. */
  progress(): void {
    if (this.options.idleTimeoutMs === undefined || this.signal.aborted) return;
    this.options.timers.clear(this.idleTimer);
    this.idleTimer = this.options.timers.set(() => this.controller.abort(new RunTimeout('idle', this.options.idleTimeoutMs!)), this.options.idleTimeoutMs);
  }

  /**
   * Pauses the run deadline and the idle timer while waiting on something
   * outside the run (a person's approval, a subagent). Call the returned
   * function when the wait ends.
   */
  beginExternalWait(): () => void {
    this.waits += 1;
    if (this.waits === 1) {
      this.pauseClock();
      this.options.timers.clear(this.idleTimer);
    }
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.waits -= 1;
      if (this.waits === 0) {
        this.resumeClock();
        this.progress();
      }
    };
  }

  dispose(): void {
    this.options.timers.clear(this.runTimer);
    this.options.timers.clear(this.idleTimer);
  }

  private pauseClock(): void {
    if (this.activeSince !== undefined) this.activeMs += this.options.now() - this.activeSince;
    this.activeSince = undefined;
    this.options.timers.clear(this.runTimer);
  }

  private resumeClock(): void {
    if (this.options.runTimeoutMs === undefined || this.signal.aborted) return;
    this.activeSince = this.options.now();
    const left = Math.max(0, this.options.runTimeoutMs - this.activeMs);
    this.runTimer = this.options.timers.set(() => this.controller.abort(new RunTimeout('run', this.options.runTimeoutMs!)), left);
  }
}

/** Timer functions, injectable so tests control time. */
export interface Timers {
  set(callback: () => void, delayMs: number): unknown;
  clear(handle: unknown): void;
}

const NODE_TIMERS: Timers = {
  set: (callback, delayMs) => setTimeout(callback, delayMs),
  clear: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

export class RunTimeout extends Error {
  readonly which: 'run' | 'idle';
  constructor(which: 'run' | 'idle', limitMs: number) {
    super(which === 'run' ? `the run exceeded its ${limitMs} ms of active time` : `no progress for ${limitMs} ms`);
    this.name = 'RunTimeout';
    this.which = which;
  }
}
