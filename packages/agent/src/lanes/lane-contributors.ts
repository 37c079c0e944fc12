import type { CanonicalHistory, ContextContributorFactory, JsonValue } from '@strata/context';
import type { PlanItem } from './plan-tool.js';
import type { LaneEntry, LaneName, RunLanes } from './run-lanes.js';

/** The id of each lane's projection: a hidden data_only user message for one model call. */
export const LANE_MESSAGE_IDS: Readonly<Record<LaneName, string>> = {
  plan: 'plan_state',
  skill: 'active_skills',
  delegation: 'delegation_state',
  artifact: 'artifact_state',
  review: 'review_state',
  memory: 'memory_state',
};

/** Longest line a lane shows of one value; the value itself stays whole in the lane. */
const VALUE_PREVIEW_CHARS = 240;

type Render = (entries: readonly LaneEntry[], history: CanonicalHistory) => string;

const RENDER: Readonly<Record<LaneName, Render>> = {
  plan: (entries) => {
    const plan = entries[0]!;
    const items = plan.value as unknown as PlanItem[];
    return [`Active plan (declared by update_plan call ${plan.toolCallId}):`, ...items.map((item, index) => `${index + 1}. [${item.status}] ${item.step}`)].join('\n');
  },
  skill: (entries, history) =>
    [
      'Skills read in this run:',
      ...entries.map((entry) => {
        const revision = String((entry.value as { revision?: unknown }).revision ?? 'unknown');
        return bodyVisible(history, entry.toolCallId)
          ? `- "${entry.key}" (revision ${revision}): its instructions are in the conversation.`
          : `- "${entry.key}" (revision ${revision}) was read earlier, but its instructions are no longer in context. Call read_skill for "${entry.key}" again before following it.`;
      }),
    ].join('\n'),
  delegation: (entries) => ['Sub-agent runs:', ...entries.map((entry) => `- ${preview(entry.value)} (call ${entry.toolCallId})`)].join('\n'),
  artifact: (entries) => ['Artifacts:', ...entries.map((entry) => `- "${entry.key}": ${preview(entry.value)}`)].join('\n'),
  review: (entries) => ['Reviews:', ...entries.map((entry) => `- ${preview(entry.value)} (call ${entry.toolCallId})`)].join('\n'),
  memory: (entries) => ['Memory:', ...entries.map((entry) => `- ${entry.key}: ${preview(entry.value)}`)].join('\n'),
};

/**
 * One lane's projection as its own contributor: the lane's state as hidden
 * data_only user content for this call only, within the contributed-message
 * budget. Nothing when the lane is empty. Because it reads the lane, not
 * the history, it survives compaction.
 */
export function laneContributorFactory(options: { lane: LaneName; lanes: RunLanes }): ContextContributorFactory {
  const { lane, lanes } = options;
  const id = LANE_MESSAGE_IDS[lane];
  return {
    id: `strata.lane.${lane}`,
    create: ({ scope }) => ({
      id,
      scopes: [scope],
      contribute(request) {
        const entries = lanes.entries(lane);
        if (entries.length === 0) return {};
        return { messages: [{ id, role: 'user', content: RENDER[lane](entries, request.history) }] };
      },
    }),
  };
}

/** True when the result of the call is still in the history with its body intact (not masked or summarized away). */
function bodyVisible(history: CanonicalHistory, toolCallId: string): boolean {
  return history.some((message) => message.role === 'tool' && message.toolCallId === toolCallId && message.masked !== true);
}

/** One line of a value: its text (a summary field first) or its JSON, bounded. */
function preview(value: JsonValue): string {
  const summary = typeof value === 'object' && value !== null && !Array.isArray(value) ? value['summary'] : undefined;
  const text = typeof summary === 'string' ? summary : typeof value === 'string' ? value : JSON.stringify(value);
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length <= VALUE_PREVIEW_CHARS ? line : `${line.slice(0, VALUE_PREVIEW_CHARS)}…`;
}
