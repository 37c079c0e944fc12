import type { ToolDefinition } from '@strata/context';
import { toolErrorOutcome } from '@strata/tools';
import { createAgentRun, type AgentBindings, type AgentProfile } from '../create-agent-run.js';
import { DELEGATE_TOOL_NAME } from '../lanes/lane-reducers.js';
import { runHandleOf } from '../run-handle.js';

export interface DelegateToolOptions {
  /** The sub-agent: its own profile (run with scope `subagent`) ... */
  readonly profile: AgentProfile;
  /** ... and its own bindings: model, tools, stores and budget (its configuration). */
  readonly bindings: AgentBindings;
}

/**
 * The `delegate` tool: starts a child run through `createAgentRun` with its
 * own context id (`<parent>/subagent/<call id>`), scope and budget. The
 * parent's deadline is paused (an external wait) while the child runs; the
 * child runs under the parent's signal, so cancelling the parent cancels it.
 * The child's final text comes back as the tool result and, through the
 * delegation lane, into the parent's state.
 */
export function createDelegateTool(options: DelegateToolOptions): ToolDefinition {
  const profile: AgentProfile = { ...options.profile, scope: 'subagent' };
  return {
    name: DELEGATE_TOOL_NAME,
    description: 'Hand a self-contained task to a sub-agent. It works in its own context and returns a summary of what it did and found.',
    parameters: {
      type: 'object',
      properties: { task: { type: 'string', minLength: 1, description: 'The task, with everything the sub-agent needs to know.' } },
      required: ['task'],
      additionalProperties: false,
    },
    concurrencySafe: false,
    async execute(input, context) {
      const { task } = input as { task: string };
      const parent = runHandleOf(context.signal);
      const endWait = parent?.beginExternalWait();
      try {
        const contextId = `${context.contextId}/subagent/${context.toolCallId}`;
        const result = await createAgentRun(profile, options.bindings, { contextId, prompt: task, signal: context.signal }).execute();
        if (result.stopReason !== 'completed') {
          return toolErrorOutcome({ code: 'SUBAGENT_FAILED', tool: DELEGATE_TOOL_NAME, message: `the sub-agent stopped without finishing (${result.stopReason})`, details: { contextId, stopReason: result.stopReason } });
        }
        return { content: result.text, data: { contextId, turns: result.turns } };
      } finally {
        endWait?.();
      }
    },
  };
}
