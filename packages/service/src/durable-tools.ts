import { DBOS } from '@dbos-inc/dbos-sdk';
import { describeRedactions, redactCredentials, redactCredentialsDeep, type ContextDiagnostic, type CredentialRedaction, type ToolDefinition, type ToolExecutionContext, type ToolOutcome } from '@strata/context';
import { gatherToolOutput } from '@strata/tools';
import type { ActiveTime } from './active-time.js';
import { StepFailureError } from './errors/step-failure-error.js';
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
 *
 * DBOS keeps what a step returns and what it throws (message and stack), so
 * the step returns its outcome with credentials redacted (the text, a
 * streamed body gathered, and `data`), and a handler's throw leaves it as a
 * `StepFailureError` whose message and stack are redacted. `onDiagnostic`
 * hears what a live call's outcome carried (kinds and counts, never a value).
 */
export function durableTool(tool: ServiceTool, activeTime: ActiveTime, onDiagnostic?: (diagnostic: ContextDiagnostic) => void): ToolDefinition {
  return {
    name: tool.name,
    description: tool.description,
    parameters: tool.parameters,
    concurrencySafe: tool.concurrencySafe,
    execute: async (input, context: ToolExecutionContext) => {
      const serviceContext: ServiceToolContext = { ...context, idempotencyKey: `${context.contextId}/${context.toolCallId}` };
      const step = `tool:${context.toolCallId}`;
      const recorded = await DBOS.runStep(
        async (): Promise<RecordedCall> => {
          try {
            const { outcome, redactions } = await redactedOutcome(await tool.execute(input, serviceContext));
            if (redactions.length > 0) {
              onDiagnostic?.({
                code: 'AGENT_CREDENTIALS_REDACTED',
                severity: 'warning',
                subject: context.toolCallId,
                message: `the ${outcome.isError === true ? 'error' : 'output'} of tool "${tool.name}" (call ${context.toolCallId}) carried credentials (${describeRedactions(redactions)}); they were redacted before the step recorded it`,
              });
            }
            return { outcome, activeMs: activeTime.read() };
          } catch (thrown) {
            throw new StepFailureError({ step, thrown });
          }
        },
        { name: step },
      );
      activeTime.advanceTo(recorded.activeMs);
      return recorded.outcome;
    },
  };
}

/** The outcome as a step may record it: its whole text redacted, `data` redacted; anything that is not an outcome is left to the registry to refuse. */
async function redactedOutcome(outcome: ToolOutcome): Promise<{ outcome: ToolOutcome; redactions: readonly CredentialRedaction[] }> {
  if (typeof outcome !== 'object' || outcome === null || typeof outcome.content !== 'string') return { outcome, redactions: [] };
  const content = redactCredentials(outcome.stream === undefined ? outcome.content : await gatherToolOutput(outcome));
  const data = redactCredentialsDeep(outcome.data);
  const { stream: _stream, ...rest } = outcome;
  return {
    outcome: { ...rest, content: content.text, ...(outcome.data === undefined ? {} : { data: data.value }) },
    redactions: content.redactions.length > 0 ? content.redactions : data.redactions,
  };
}
