import { compareCodeUnits, type ContextBlock } from './context-block.js';
import { mergeSorted } from './merge-sorted.js';

/**
 * What a trace event needs to list every block as of its moment, captured in
 * O(1): a frozen base list of block states plus a newest-first persistent
 * list of the changes made since. Events share the base and the changes, so
 * a register with a trace recorder attached costs its own changes, not a copy
 * of the workspace; the listing is built only when an event's `blocks` is
 * read.
 *
 * The base is rebuilt from the workspace when a capture finds it stale (a
 * resolve touched every block) or when the changes since outnumber it, so
 * each rebuild of n states pays for at least n changes (or for a resolve of
 * n blocks), and reading an event costs O(n + changes · log changes).
 */

/** One block's stored state at one moment. Never changed: captured events keep it. */
export interface TracedState {
  readonly sequence: number;
  readonly block: ContextBlock;
  /** As stored; time fade since `touchedAtMs` is charged by whoever reads it. */
  readonly score: number;
  readonly touchedAtMs: number;
}

/** One change, newest first: the block's new state, or `undefined` when it was removed. */
interface Change {
  readonly sequence: number;
  readonly state: TracedState | undefined;
  readonly previous: Change | undefined;
}

/** The workspace at one moment, as a capture left it. */
export interface TracedWorkspace {
  /** In trace order: block name, source (code units), then sequence. */
  readonly base: readonly TracedState[];
  readonly changes: Change | undefined;
}

/** Changes beyond the base's length that are tolerated before a capture rebuilds the base. */
const CHANGE_SLACK = 64;

export class TraceJournal {
  /** `undefined`: any block may have changed since (a resolve); the next capture rebuilds. */
  #base: readonly TracedState[] | undefined;
  #changes: Change | undefined;
  #changeCount = 0;

  /** A block was added or its stored score changed. */
  set(state: TracedState): void {
    this.#push(state.sequence, state);
  }

  removed(sequence: number): void {
    this.#push(sequence, undefined);
  }

  /** Every block may have changed (a resolve faded and activated them): the next capture rebuilds instead of recording n changes. */
  invalidate(): void {
    this.#base = undefined;
    this.#changes = undefined;
    this.#changeCount = 0;
  }

  /** The workspace now. `current` lists every block in trace order; it is called only when the base must be rebuilt. */
  capture(current: () => readonly TracedState[]): TracedWorkspace {
    if (this.#base === undefined || this.#changeCount > this.#base.length + CHANGE_SLACK) {
      this.#base = Object.freeze(current());
      this.#changes = undefined;
      this.#changeCount = 0;
    }
    return { base: this.#base, changes: this.#changes };
  }

  #push(sequence: number, state: TracedState | undefined): void {
    if (this.#base === undefined) return; // rebuilt at the next capture anyway
    this.#changes = { sequence, state, previous: this.#changes };
    this.#changeCount += 1;
  }
}

/** Every block of a captured workspace, in trace order. */
export function tracedStates(captured: TracedWorkspace): readonly TracedState[] {
  if (captured.changes === undefined) return captured.base;
  const latest = new Map<number, TracedState | undefined>();
  for (let change: Change | undefined = captured.changes; change !== undefined; change = change.previous) {
    if (!latest.has(change.sequence)) latest.set(change.sequence, change.state);
  }
  const states: TracedState[] = [];
  for (const state of captured.base) {
    if (!latest.has(state.sequence)) {
      states.push(state);
      continue;
    }
    // A block keeps its name, source and sequence, so a changed state keeps its place.
    const current = latest.get(state.sequence);
    latest.delete(state.sequence);
    if (current !== undefined) states.push(current);
  }
  const added = [...latest.values()].filter((state) => state !== undefined).sort(compareTraceOrder);
  return added.length === 0 ? states : mergeSorted(states, added, compareTraceOrder);
}

/** Block name, then source (code units), then sequence. */
export function compareTraceOrder(left: TracedState, right: TracedState): number {
  return (
    compareCodeUnits(left.block.blockName, right.block.blockName) ||
    compareCodeUnits(left.block.source, right.block.source) ||
    left.sequence - right.sequence
  );
}
