import type { PlanProgress } from './context-trace.js';
import type { CanonicalHistory } from './messages.js';

export const PLAN_TOOL_NAME = 'update_plan';

/** The latest `update_plan` call at or after `from`, scanning back from the end. */
export function lastPlanCall(history: CanonicalHistory, from = 0): { index: number; id: string } | undefined {
  for (let index = history.length - 1; index >= from; index -= 1) {
    const message = history[index]!;
    if (message.role !== 'assistant') continue;
    const call = message.toolCalls?.findLast((candidate) => candidate.name === PLAN_TOOL_NAME);
    if (call) return { index, id: call.id };
  }
  return undefined;
}

/**
 * Where the active plan stands, for the trace only. When compaction removed
 * the declaring call, says so (anchorFound: false) and guesses no ages.
 */
export function planProgressOf(options: {
  original: CanonicalHistory;
  visible: CanonicalHistory;
  /** The latest plan call of `original` when the caller already knows it (`null`: none), so the history is not scanned again. */
  declared?: { readonly index: number; readonly id: string } | null;
}): PlanProgress | null {
  const declared = options.declared === undefined ? lastPlanCall(options.original) : options.declared ?? undefined;
  if (!declared) return null;
  const visible = lastPlanCall(options.visible);
  if (!visible) return { toolCallId: declared.id, anchorFound: false };
  let laterModelSteps = 0;
  let completedNonPlanToolResults = 0;
  for (const message of options.visible.slice(visible.index + 1)) {
    if (message.role === 'assistant') laterModelSteps += 1;
    if (message.role === 'tool' && message.toolName !== PLAN_TOOL_NAME && message.isError !== true) completedNonPlanToolResults += 1;
  }
  return { toolCallId: visible.id, anchorFound: true, laterModelSteps, completedNonPlanToolResults };
}
