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
  /** Every block as of the event. Listed and rendered on first read. */
  readonly blocks: readonly ContextWorkspaceTraceBlock[];
}

/** Where the workspace reports its changes. Implemented by the application (a trace file, a log). */
export interface TraceRecorder {
  record(event: ContextWorkspaceTraceEvent): void;
}

/**
 * Builds an event. `blocks` is listed and rendered on first read (an own
 * enumerable property, so `JSON.stringify` and deep equality see it), from
 * `blocks` as captured at the event: recording stays cheap for a recorder
 * that only counts or filters events, and an event read later still shows
 * its own moment. Keys are sorted by block name, then source.
 */
export function traceEvent(options: {
  readonly action: ContextWorkspaceTraceEvent['action'];
  readonly atMs: number;
  readonly changed: readonly SourceKey[];
  /** Every block as of the event, in trace order (block name, source, sequence). Called at most once. */
  readonly blocks: () => readonly { readonly sequence: number; readonly block: ContextBlock; readonly activationScore: number }[];
}): ContextWorkspaceTraceEvent {
  const changedSourceKeys = options.changed
    .map((key) => ({ blockName: key.blockName, source: key.source }))
    .sort(compareSourceKeys);
  const event: ContextWorkspaceTraceEvent = { name: CONTEXT_WORKSPACE_TRACE_EVENT, action: options.action, atMs: options.atMs, changedSourceKeys, blocks: [] };
  Object.defineProperty(event, 'blocks', {
    enumerable: true,
    configurable: true,
    get() {
      const blocks = options.blocks().map(traceBlock);
      Object.defineProperty(event, 'blocks', { value: blocks, enumerable: true, writable: false, configurable: false });
      return blocks;
    },
  });
  return event;
}

function traceBlock(state: { readonly sequence: number; readonly block: ContextBlock; readonly activationScore: number }): ContextWorkspaceTraceBlock {
  const { sequence, block, activationScore } = state;
  return {
    sequence,
    blockName: block.blockName,
    source: block.source,
    focusedOn: block.focusedOn,
    activationScore,
    level: projectionLevel(activationScore),
    fullRendered: renderBlockElement(block, 'full'),
    compactRendered: renderBlockElement(block, 'compact'),
    abstractRendered: renderBlockElement(block, 'abstract'),
  };
}

function compareSourceKeys(left: SourceKey, right: SourceKey): number {
  return compareCodeUnits(left.blockName, right.blockName) || compareCodeUnits(left.source, right.source);
}
