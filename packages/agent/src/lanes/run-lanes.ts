import type { CanonicalHistory, JsonValue, ToolCall, ToolResultMessage } from '@strata/context';

/** The run's structured state, one lane per kind (seed 000, durable state and authority). */
export const LANE_NAMES = ['plan', 'skill', 'delegation', 'artifact', 'review', 'memory'] as const;
export type LaneName = (typeof LANE_NAMES)[number];

/** One keyed value of a lane and the tool call whose result set it. */
export interface LaneEntry {
  readonly key: string;
  readonly value: JsonValue;
  readonly toolCallId: string;
}

/** What one successful tool result changes in one lane. */
export interface LaneUpdate {
  readonly lane: LaneName;
  readonly key: string;
  readonly value: JsonValue;
}

/**
 * Reads lane updates from one tool call and its result. Pure and
 * deterministic over the canonical history (call input and result text), so
 * a resumed run back-fills the same state from stored history.
 */
export interface LaneReducer {
  /** The tool whose results it reads. */
  readonly tool: string;
  reduce(call: ToolCall, result: ToolResultMessage): readonly LaneUpdate[];
}

/**
 * The run's lanes: state, not history, so it survives compaction. Updated
 * only by successful tool results, at the tool-result boundary, in the order
 * the model declared the calls. A later value for a key replaces the earlier
 * one; entries keep the order their keys were first set.
 */
export class RunLanes {
  private readonly reducers = new Map<string, LaneReducer[]>();
  private readonly lanes = new Map<LaneName, Map<string, LaneEntry>>(LANE_NAMES.map((name) => [name, new Map()]));

  constructor(reducers: readonly LaneReducer[]) {
    for (const reducer of reducers) this.reducers.set(reducer.tool, [...(this.reducers.get(reducer.tool) ?? []), reducer]);
  }

  /** Applies one result; error results change nothing. Returns what changed. */
  apply(call: ToolCall, result: ToolResultMessage): readonly LaneUpdate[] {
    if (result.isError === true) return [];
    const updates = (this.reducers.get(call.name) ?? []).flatMap((reducer) => reducer.reduce(call, result));
    for (const update of updates) this.lanes.get(update.lane)!.set(update.key, { key: update.key, value: update.value, toolCallId: call.id });
    return updates;
  }

  /**
   * Fills the lanes from a history's assistant calls and their matching
   * results, in declared order: for a run created from an existing history,
   * before any compaction.
   */
  backfill(history: CanonicalHistory): void {
    const results = new Map<string, ToolResultMessage>();
    for (const message of history) if (message.role === 'tool') results.set(message.toolCallId, message);
    for (const message of history) {
      if (message.role !== 'assistant') continue;
      for (const call of message.toolCalls ?? []) {
        const result = results.get(call.id);
        if (result) this.apply(call, result);
      }
    }
  }

  entries(lane: LaneName): readonly LaneEntry[] {
    return [...this.lanes.get(lane)!.values()];
  }

  /**
   * The lanes as JSON, persisted with the session: compaction may remove the
   * calls a lane was filled from, so a resumed run restores this instead of
   * back-filling from what is left.
   */
  snapshot(): JsonValue {
    const lanes: Record<string, JsonValue> = {};
    for (const [name, entries] of this.lanes) if (entries.size > 0) lanes[name] = [...entries.values()].map((entry) => [entry.key, entry.value, entry.toolCallId]);
    return { lanes };
  }

  /** Takes the lanes of a `snapshot`; false (and nothing changed) when the value is not one. */
  restore(snapshot: unknown): boolean {
    const lanes = (snapshot as { lanes?: unknown } | null | undefined)?.lanes;
    if (typeof lanes !== 'object' || lanes === null || Array.isArray(lanes)) return false;
    const restored = new Map<LaneName, Map<string, LaneEntry>>();
    for (const name of LANE_NAMES) {
      const entries = (lanes as Record<string, unknown>)[name] ?? [];
      if (!Array.isArray(entries)) return false;
      const lane = new Map<string, LaneEntry>();
      for (const entry of entries) {
        if (!Array.isArray(entry) || entry.length !== 3 || typeof entry[0] !== 'string' || typeof entry[2] !== 'string') return false;
        lane.set(entry[0], { key: entry[0], value: entry[1] as JsonValue, toolCallId: entry[2] });
      }
      restored.set(name, lane);
    }
    for (const [name, lane] of restored) this.lanes.set(name, lane);
    return true;
  }
}
