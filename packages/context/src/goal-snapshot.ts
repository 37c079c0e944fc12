import type { ContextContributorFactory } from './contributor.js';
import { messageText } from './message-text.js';
import type { CanonicalHistory } from './messages.js';
import type { SessionStore } from './ports.js';
import type { TokenEstimator } from './token-estimator.js';

export const GOAL_SECTION_ID = 'run_contract.goal';

/** The first user request of a history (hidden data messages are not requests). */
export function firstRequest(history: CanonicalHistory): string | undefined {
  const first = history.find((message) => message.role === 'user' && message.hidden !== true);
  return first === undefined ? undefined : messageText(first);
}

/**
 * The run's original request, verbatim: the first user message of the
 * context's earliest stored version (compaction only ever writes newer
 * versions, so it survives there), else of the history in hand, else the
 * new prompt. Undefined when there is none.
 */
export async function originalRequest(options: { contextId: string; history: CanonicalHistory; prompt?: string; sessionStore?: SessionStore }): Promise<string | undefined> {
  const { sessionStore, contextId } = options;
  const versions = (await sessionStore?.versions(contextId)) ?? [];
  const earliest = versions.length > 0 ? await sessionStore!.loadVersion(contextId, Math.min(...versions)) : undefined;
  return (earliest && firstRequest(earliest.messages)) ?? firstRequest(options.history) ?? options.prompt;
}

/**
 * The goal snapshot: the original request as a protected section of the run
 * contract, so the task survives any window and any compaction. Protected
 * means never truncated by the budget, so its size is bounded here, once:
 * a request over `maxTokens` (the caller gives half the system-prompt
 * budget) keeps its head and tail verbatim around a note, rather than fail
 * every turn of the run. `goal` is the run's request, or, where one pipeline
 * serves many contexts (a host loop), the request of each context (none: no
 * section).
 */
export function goalSnapshotFactory(options: { goal: string | ((contextId: string) => string | undefined); maxTokens: number; estimator: TokenEstimator }): ContextContributorFactory {
  const sectionOf = (goal: string) => ({ id: GOAL_SECTION_ID, slot: 'run_contract' as const, title: "The run's original request (verbatim)", content: bounded(goal, options.maxTokens, options.estimator) });
  const fixed = typeof options.goal === 'string' ? sectionOf(options.goal) : undefined;
  const goalOf = options.goal;
  return {
    id: 'strata.goal-snapshot',
    create: ({ scope }) => ({
      id: 'goal-snapshot',
      scopes: [scope],
      required: true,
      contribute: ({ contextId }) => {
        if (fixed) return { sections: [fixed] };
        const goal = (goalOf as (contextId: string) => string | undefined)(contextId);
        return goal?.trim() ? { sections: [sectionOf(goal)] } : {};
      },
    }),
  };
}

/** The goal whole when it fits; else its head and tail, cut until they fit with the note. */
function bounded(goal: string, maxTokens: number, estimator: TokenEstimator): string {
  if (estimator.countText(goal) <= maxTokens) return goal;
  for (let keep = Math.floor((goal.length * maxTokens) / estimator.countText(goal)); keep > 0; keep = Math.floor(keep * 0.8)) {
    const head = goal.slice(0, Math.ceil((keep * 2) / 3));
    const tail = goal.slice(goal.length - Math.floor(keep / 3));
    const text = `${head}\n[… ${goal.length - head.length - tail.length} characters of the original request left out here; it is too long for the run contract …]\n${tail}`;
    if (estimator.countText(text) <= maxTokens) return text;
  }
  return `[the original request is too long for the run contract (${goal.length} characters)]`;
}
