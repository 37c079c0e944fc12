import type { ProjectionLevel } from './activation.js';
import type { FocusedDomain } from './focused-domain.js';
import type { SourceKey } from './context-block.js';

export const CONTEXT_WORKSPACE_TRACE_EVENT = 'context-workspace';

/** The state of one block when an event was recorded. */
export interface ContextWorkspaceTraceBlock {
  readonly sequence: number;
  readonly blockName: string;
  readonly source: string;
  readonly focusedOn: readonly FocusedDomain[];
  /** As of the event, time fade included (observing does not write it back). */
  readonly activationScore: number;
  readonly level: ProjectionLevel;
  readonly fullRendered: string;
  readonly compactRendered: string;
  readonly abstractRendered: string;
}

/**
 * Recorded on every register, and on every expire that removed something.
 * `changedSourceKeys` and `blocks` are sorted by block name, then source
 * (then sequence), so the same history records the same bytes.
 */
export interface ContextWorkspaceTraceEvent {
  readonly name: typeof CONTEXT_WORKSPACE_TRACE_EVENT;
  readonly action: 'register' | 'expire';
  /** The workspace clock, milliseconds. */
  readonly atMs: number;
  readonly changedSourceKeys: readonly SourceKey[];
  readonly blocks: readonly ContextWorkspaceTraceBlock[];
}

/** Where the workspace reports its changes. Implemented by the application (a trace file, a log). */
export interface TraceRecorder {
  record(event: ContextWorkspaceTraceEvent): void;
}
