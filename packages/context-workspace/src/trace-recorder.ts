import { projectionLevel, type ProjectionLevel } from './activation.js';
import { compareCodeUnits, type ContextBlock, type SourceKey } from './context-block.js';
import type { FocusedDomain } from './focused-domain.js';
import { renderBlockElement } from './render-block.js';

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

/** Builds an event: keys and blocks sorted by block name, then source (then sequence), every projection rendered. */
export function traceEvent(options: {
  readonly action: ContextWorkspaceTraceEvent['action'];
  readonly atMs: number;
  readonly changed: readonly SourceKey[];
  readonly blocks: readonly { readonly sequence: number; readonly block: ContextBlock; readonly activationScore: number }[];
}): ContextWorkspaceTraceEvent {
  const blocks = [...options.blocks]
    .sort((left, right) => compareSourceKeys(left.block, right.block) || left.sequence - right.sequence)
    .map(({ sequence, block, activationScore }) => ({
      sequence,
      blockName: block.blockName,
      source: block.source,
      focusedOn: block.focusedOn,
      activationScore,
      level: projectionLevel(activationScore),
      fullRendered: renderBlockElement(block, 'full'),
      compactRendered: renderBlockElement(block, 'compact'),
      abstractRendered: renderBlockElement(block, 'abstract'),
    }));
  const changedSourceKeys = options.changed
    .map((key) => ({ blockName: key.blockName, source: key.source }))
    .sort(compareSourceKeys);
  return { name: CONTEXT_WORKSPACE_TRACE_EVENT, action: options.action, atMs: options.atMs, changedSourceKeys, blocks };
}

function compareSourceKeys(left: SourceKey, right: SourceKey): number {
  return compareCodeUnits(left.blockName, right.blockName) || compareCodeUnits(left.source, right.source);
}
