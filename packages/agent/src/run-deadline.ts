import { SYSTEM_TIMERS, type Timers } from '@strata/context';

/**
 * The run's clocks: total active time, idle time without progress, and
 * external waits (permission, subagents) that pause the total deadline.
 * Exposes one signal that fires on whichever comes first.
 *
 * A run that spans executions (a durable run's turns, each resumed after a
 * restart) carries its active time across them: `usedMs` starts the clock
 * where earlier executions left it, `activeMs()` reads it for a checkpoint,
 * and `advanceTo` moves it to a replayed checkpoint's reading.
 */
export class RunDeadline {
  readonly signal: AbortSignal;
  private readonly controller = new AbortController();
  private readonly options: { runTimeoutMs?: number; idleTimeoutMs?: number; now: () => number; timers: Timers };
  /** Active time before the current stretch (`activeSince`); waits are never added. */
  private usedMs: number;
  private activeSince: number | undefined;
  private waits = 0;
  private runTimer: unknown;
  private idleTimer: unknown;

  constructor(options: {
    runTimeoutMs?: number;
    idleTimeoutMs?: number;
    /** Active time earlier executions of this run used; the run deadline counts on from it. Default 0. */
    usedMs?: number;
    signal?: AbortSignal;
    now?: () => number;
    timers?: Timers;
  }) {
    this.options = { ...options, now: options.now ?? (() => performance.now()), timers: options.timers ?? SYSTEM_TIMERS };
    this.usedMs = options.usedMs ?? 0;
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

  /** Active time the run has used so far, earlier executions' included, waits excluded. Stops growing at `dispose`. */
  activeMs(): number {
    return this.usedMs + (this.activeSince === undefined ? 0 : this.options.now() - this.activeSince);
  }

  /**
   * A checkpoint recorded that the run had used `activeMs` by this point
   * (a step replayed from its record, which took no time now): the clock
   * moves forward to it, never back. At or past the run deadline, the signal
   * fires at once, as it did when the checkpoint was recorded.
   */
  advanceTo(activeMs: number): void {
    const behind = activeMs - this.activeMs();
    if (behind <= 0) return;
    this.usedMs += behind;
    if (this.activeSince === undefined) return;
    const { runTimeoutMs } = this.options;
    if (runTimeoutMs !== undefined && this.activeMs() >= runTimeoutMs) {
      this.options.timers.clear(this.runTimer);
      this.timeOut();
      return;
    }
    this.pauseClock();
    this.resumeClock();
  }

  /** Stops the clocks: `activeMs()` keeps its last reading. */
  dispose(): void {
    this.pauseClock();
    this.options.timers.clear(this.idleTimer);
  }

  private pauseClock(): void {
    if (this.activeSince !== undefined) this.usedMs += this.options.now() - this.activeSince;
    this.activeSince = undefined;
    this.options.timers.clear(this.runTimer);
  }

  /** Starts the active-time clock, and the run deadline (when set) with the time left on it. */
  private resumeClock(): void {
    if (this.signal.aborted) return;
    this.activeSince = this.options.now();
    if (this.options.runTimeoutMs === undefined) return;
    const left = Math.max(0, this.options.runTimeoutMs - this.usedMs);
    this.runTimer = this.options.timers.set(() => this.timeOut(), left);
  }

  private timeOut(): void {
    this.controller.abort(new RunTimeout('run', this.options.runTimeoutMs!));
  }
}

export class RunTimeout extends Error {
  readonly which: 'run' | 'idle';
  constructor(which: 'run' | 'idle', limitMs: number) {
    super(which === 'run' ? `the run exceeded its ${limitMs} ms of active time` : `no progress for ${limitMs} ms`);
    this.name = 'RunTimeout';
    this.which = which;
  }
}
