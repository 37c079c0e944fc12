import { DBOS } from '@dbos-inc/dbos-sdk';
import { untilAborted } from '@strata/agent';
import type { ToolDefinition } from '@strata/context';

export const APPROVAL_TOOL_NAME = 'request_approval';
/** The DBOS message topic a run's approval replies arrive on. */
export const APPROVAL_TOPIC = 'approval';
/** Default: a person has a week to answer. */
export const APPROVAL_TIMEOUT_SECONDS = 7 * 24 * 3_600;

/** A reply posted to `POST /runs/:id/messages`. */
export interface ApprovalReply {
  readonly approved: boolean;
  readonly text?: string;
}

/**
 * `request_approval`: the run waits for a person's reply as a durable DBOS
 * message (`recv` on the `approval` topic of the turn's workflow), which
 * survives a restart of every worker. The run deadline is paused while it
 * waits (`beginExternalWait`). A cancel ends the wait at once.
 */
export function createApprovalTool(options: { readonly beginExternalWait: () => () => void; readonly timeoutSeconds?: number }): ToolDefinition {
  return {
    name: APPROVAL_TOOL_NAME,
    description: 'Ask a person to approve the next action; the run waits for the answer.',
    parameters: { type: 'object', properties: { question: { type: 'string', description: 'What the person is asked to approve.' } }, required: ['question'], additionalProperties: false },
    async execute(_input, { signal }) {
      const endWait = options.beginExternalWait();
      try {
        const reply = await untilAborted(DBOS.recv<ApprovalReply>(APPROVAL_TOPIC, options.timeoutSeconds ?? APPROVAL_TIMEOUT_SECONDS), signal);
        if (reply === null) return { content: 'No answer came before the approval timed out.', isError: true };
        return { content: JSON.stringify({ approved: reply.approved === true, text: reply.text ?? '' }) };
      } finally {
        endWait();
      }
    },
  };
}
