import type { CanonicalHistory, CanonicalMessage } from './messages.js';

/**
 * An atomic piece of history: one message, or an assistant message with its
 * tool calls and every matching tool result right after it. Closed when every
 * call has a result, open otherwise. The window never splits a unit.
 */
export interface HistoryUnit {
  /** Index of the unit's first message in the history it was built from. */
  readonly start: number;
  /** One past the unit's last message. */
  readonly end: number;
  readonly messages: readonly CanonicalMessage[];
  readonly kind: 'message' | 'tool-step' | 'orphan-result';
  /** Call ids still without a result. */
  readonly pendingCallIds: readonly string[];
}

export function isOpenUnit(unit: HistoryUnit): boolean {
  return unit.pendingCallIds.length > 0;
}

/**
 * Splits history into units by position, as providers check it: a tool
 * result belongs to the assistant message right before its run of results,
 * and only if it answers a still-pending call of that message. Any other tool
 * result is an orphan, a unit of its own. `from` starts at a unit boundary.
 */
export function buildHistoryUnits(history: CanonicalHistory, from = 0): HistoryUnit[] {
  const units: HistoryUnit[] = [];
  let index = from;
  while (index < history.length) {
    const message = history[index]!;
    if (message.role === 'assistant' && (message.toolCalls?.length ?? 0) > 0) {
      const { end, pending } = toolStep(history, index);
      const order = message.toolCalls!.map((call) => call.id).filter((id) => pending.has(id));
      units.push({ start: index, end, messages: history.slice(index, end), kind: 'tool-step', pendingCallIds: order });
      index = end;
      continue;
    }
    units.push({ start: index, end: index + 1, messages: [message], kind: message.role === 'tool' ? 'orphan-result' : 'message', pendingCallIds: [] });
    index += 1;
  }
  return units;
}

/**
 * The units of `buildHistoryUnits` by place alone: `visit` gets each unit's
 * start, end and whether a call of it is still without a result, and no list
 * of its messages is made (for the indexes that keep places, over a long
 * history: a list per unit would be that much garbage a turn).
 */
export function forEachUnitSpan(history: CanonicalHistory, from: number, visit: (start: number, end: number, open: boolean) => void): void {
  let index = from;
  while (index < history.length) {
    const message = history[index]!;
    if (message.role === 'assistant' && (message.toolCalls?.length ?? 0) > 0) {
      const { end, pending } = toolStep(history, index);
      visit(index, end, pending.size > 0);
      index = end;
      continue;
    }
    visit(index, index + 1, false);
    index += 1;
  }
}

/** Where the tool step at `history[index]` ends, and the call ids still without a result. */
function toolStep(history: CanonicalHistory, index: number): { end: number; pending: Set<string> } {
  const pending = new Set((history[index] as Extract<CanonicalMessage, { role: 'assistant' }>).toolCalls!.map((call) => call.id));
  let end = index + 1;
  while (end < history.length) {
    const next = history[end]!;
    if (next.role !== 'tool' || !pending.has(next.toolCallId)) break;
    pending.delete(next.toolCallId);
    end += 1;
  }
  return { end, pending };
}

/** A real user request: not a call-local observation, not a checkpoint. */
export function isTaskAnchorCandidate(message: CanonicalMessage): boolean {
  return message.role === 'user' && message.hidden !== true && message.checkpoint !== true && message.authority !== 'data_only';
}
