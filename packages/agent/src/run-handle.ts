import type { ContextScope } from '@strata/context';
import type { RunLanes } from './lanes/run-lanes.js';

/** What a tool may know of the run that called it: for the delegate and review tools. */
export interface RunHandle {
  readonly contextId: string;
  readonly scope: ContextScope;
  readonly lanes: RunLanes;
  /** Pauses the run's deadline while a child runs; call the returned function when it ends. */
  beginExternalWait(): () => void;
}

/**
 * Runs by their signal. Every tool call receives its run's signal, so a tool
 * finds the run that called it without a global registry of runs or a
 * change to the tool contract; entries go with their signal.
 */
const RUNS = new WeakMap<AbortSignal, RunHandle>();

export function attachRunHandle(signal: AbortSignal, handle: RunHandle): void {
  RUNS.set(signal, handle);
}

/** The run whose signal a tool call received; undefined outside a run (a tool called directly). */
export function runHandleOf(signal: AbortSignal): RunHandle | undefined {
  return RUNS.get(signal);
}
