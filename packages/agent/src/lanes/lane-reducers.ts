import type { JsonValue, ToolCall } from '@strata/context';
import { READ_SKILL_NAME, skillReferenceFromContent } from '@strata/tools';
import type { LaneName, LaneReducer } from './run-lanes.js';

/** A `read_skill` result names the skill and the revision read (a file of a skill is not the skill's body). */
export const skillLaneReducer: LaneReducer = {
  tool: READ_SKILL_NAME,
  reduce(_call, result) {
    const reference = skillReferenceFromContent(result.content);
    return reference ? [{ lane: 'skill', key: reference.name, value: { revision: reference.revision } }] : [];
  },
};

/**
 * A lane fed by an ordinary tool whose input names the entry: `keyField`
 * is the key, the whole input the value. For tools of other packages
 * (an artifact writer, a memory tool) registered through the profile.
 */
export function inputLaneReducer(options: { tool: string; lane: LaneName; keyField: string }): LaneReducer {
  return {
    tool: options.tool,
    reduce(call: ToolCall) {
      const input = objectInput(call.input);
      const key = input?.[options.keyField];
      return input && typeof key === 'string' && key !== '' ? [{ lane: options.lane, key, value: input }] : [];
    },
  };
}

/** A call's input as an object (parsed when it came as text), or undefined. */
export function objectInput(input: JsonValue | undefined): Record<string, JsonValue> | undefined {
  let value: unknown = input;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      return undefined;
    }
  }
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, JsonValue>) : undefined;
}

export const DELEGATE_TOOL_NAME = 'delegate';
export const REVIEW_TOOL_NAME = 'review';

/** A finished delegation: the task and the sub-agent's summary, keyed by the call. */
export const delegationLaneReducer: LaneReducer = {
  tool: DELEGATE_TOOL_NAME,
  reduce(call, result) {
    const task = objectInput(call.input)?.['task'];
    return [{ lane: 'delegation', key: call.id, value: { task: typeof task === 'string' ? task : '', status: 'completed', summary: result.content } }];
  },
};

/** The Review lane, keyed by the call: the verdict as the review result carries it (JSON). */
export const reviewLaneReducer: LaneReducer = {
  tool: REVIEW_TOOL_NAME,
  reduce(call, result) {
    try {
      const verdict = JSON.parse(result.content) as JsonValue;
      return typeof verdict === 'object' && verdict !== null ? [{ lane: 'review', key: call.id, value: verdict }] : [];
    } catch {
      return [];
    }
  },
};
