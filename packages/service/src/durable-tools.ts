import { DBOS } from '@dbos-inc/dbos-sdk';
import type { ToolDefinition, ToolExecutionContext } from '@strata/context';
import type { ServiceTool, ServiceToolContext } from './service-catalog.js';

/**
 * A service tool as the registry runs it: each call is one DBOS step named
 * `tool:<call id>`, whose recorded outcome is returned when the turn is
 * replayed, and whose handler receives the call's idempotency key.
 */
export function durableTool(tool: ServiceTool): ToolDefinition {
  return {
    name: tool.name,
    description: tool.description,
    parameters: tool.parameters,
    concurrencySafe: tool.concurrencySafe,
    execute: (input, context: ToolExecutionContext) => {
      const serviceContext: ServiceToolContext = { ...context, idempotencyKey: `${context.contextId}/${context.toolCallId}` };
      return DBOS.runStep(async () => tool.execute(input, serviceContext), { name: `tool:${context.toolCallId}` });
    },
  };
}
