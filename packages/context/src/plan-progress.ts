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
 * Where the active plan stands, for the trace only: it never marks a plan
 * stale, schedules an update, or blocks a tool or completion. The active
 * plan is the one `activePlanCallId` names (the run's plan state, which
 * outlives compaction), else the latest `update_plan` call of the original
 * history. When that call is not in the visible history, says so
 * (anchorFound: false) and gives no age counters: no guess from wall-clock
 * time or unrelated turns. Counters: model steps after the declaring step,
 * and successful non-plan tool results after it.
 */
export function planProgressOf(options: {
  original: CanonicalHistory;
  visible: CanonicalHistory;
  /** The latest plan call of `original` when the caller already knows it (`null`: none), so the history is not scanned again. */
  declared?: { readonly index: number; readonly id: string } | null;
  /** The declaring call as the run's state knows it; wins over the history. */
  activePlanCallId?: string | undefined;
}): PlanProgress | null {
  const declaredId = options.activePlanCallId ?? (options.declared === undefined ? lastPlanCall(options.original) : options.declared ?? undefined)?.id;
  if (declaredId === undefined) return null;
  let index = options.visible.length - 1;
  while (index >= 0 && !declares(options.visible[index]!, declaredId)) index -= 1;
  if (index < 0) return { toolCallId: declaredId, anchorFound: false };
  let laterModelSteps = 0;
  let completedNonPlanToolResults = 0;
  for (const message of options.visible.slice(index + 1)) {
    if (message.role === 'assistant') laterModelSteps += 1;
    if (message.role === 'tool' && message.toolName !== PLAN_TOOL_NAME && message.isError !== true) completedNonPlanToolResults += 1;
  }
  return { toolCallId: declaredId, anchorFound: true, laterModelSteps, completedNonPlanToolResults };
}

function declares(message: CanonicalHistory[number], callId: string): boolean {
  return message.role === 'assistant' && (message.toolCalls ?? []).some((call) => call.id === callId);
}
