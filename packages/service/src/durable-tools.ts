import { DBOS } from '@dbos-inc/dbos-sdk';
import type { ToolDefinition, ToolExecutionContext, ToolOutcome } from '@strata/context';
import type { ActiveTime } from './active-time.js';
import type { ServiceTool, ServiceToolContext } from './service-catalog.js';

/** What a tool step records: the call's outcome and the run's active time when it finished. */
interface RecordedCall {
  readonly outcome: ToolOutcome;
  readonly activeMs: number;
}

/**
 * A service tool as the registry runs it: each call is one DBOS step named
 * `tool:<call id>`, whose recorded outcome is returned when the turn is
 * replayed, and whose handler receives the call's idempotency key. The step
 * records the run's active time too; a replayed call restores it.
 */
export function durableTool(tool: ServiceTool, activeTime: ActiveTime): ToolDefinition {
  return {
    name: tool.name,
    description: tool.description,
    parameters: tool.parameters,
    concurrencySafe: tool.concurrencySafe,
    execute: async (input, context: ToolExecutionContext) => {
      const serviceContext: ServiceToolContext = { ...context, idempotencyKey: `${context.contextId}/${context.toolCallId}` };
      const recorded = await DBOS.runStep(async (): Promise<RecordedCall> => ({ outcome: await tool.execute(input, serviceContext), activeMs: activeTime.read() }), { name: `tool:${context.toolCallId}` });
      activeTime.advanceTo(recorded.activeMs);
      return recorded.outcome;
    },
  };
}
