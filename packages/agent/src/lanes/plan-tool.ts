import { PLAN_TOOL_NAME, type JsonValue, type ToolDefinition } from '@strata/context';
import { objectInput } from './lane-reducers.js';
import type { LaneReducer } from './run-lanes.js';

export const PLAN_ITEM_STATUSES = ['pending', 'in_progress', 'completed'] as const;
export type PlanItemStatus = (typeof PLAN_ITEM_STATUSES)[number];

export interface PlanItem {
  readonly step: string;
  readonly status: PlanItemStatus;
}

/**
 * The `update_plan` tool: the model declares its plan as items with a status,
 * whole each time. It only records: a plan never blocks another tool or the
 * run's completion, and nothing marks it stale (seed 000, plan progress).
 */
export function createUpdatePlanTool(): ToolDefinition {
  return {
    name: PLAN_TOOL_NAME,
    description: 'Record your plan for this task as a list of steps, each pending, in_progress or completed. Send the whole plan each time it changes.',
    parameters: {
      type: 'object',
      properties: {
        items: {
          type: 'array',
          minItems: 1,
          items: {
            type: 'object',
            properties: { step: { type: 'string', minLength: 1 }, status: { type: 'string', enum: [...PLAN_ITEM_STATUSES] } },
            required: ['step', 'status'],
            additionalProperties: false,
          },
        },
        explanation: { type: 'string', description: 'Why the plan changed, in one line.' },
      },
      required: ['items'],
      additionalProperties: false,
    },
    concurrencySafe: false,
    execute(input) {
      const items = (input as unknown as { items: PlanItem[] }).items;
      const count = (status: PlanItemStatus) => items.filter((item) => item.status === status).length;
      return { content: `Plan recorded: ${items.length} steps (${count('completed')} completed, ${count('in_progress')} in progress, ${count('pending')} pending).` };
    },
  };
}

/** The plan lane holds the newest declared plan under the key `plan`. */
export const planLaneReducer: LaneReducer = {
  tool: PLAN_TOOL_NAME,
  reduce(call) {
    const items = planItemsOf(call.input);
    return items === undefined ? [] : [{ lane: 'plan', key: 'plan', value: items as unknown as JsonValue }];
  },
};

/** The items of an `update_plan` call's input (parsed when it came as text), or undefined when malformed. */
export function planItemsOf(input: JsonValue | undefined): PlanItem[] | undefined {
  const items: unknown = objectInput(input)?.['items'];
  if (!Array.isArray(items)) return undefined;
  const valid = items.every((item) => typeof item?.step === 'string' && (PLAN_ITEM_STATUSES as readonly string[]).includes(item?.status));
  return valid ? items.map((item: PlanItem) => ({ step: item.step, status: item.status })) : undefined;
}
