import type { ToolDefinition } from '@strata/context';
import { toolErrorOutcome } from '@strata/tools';
import type { AgentStopReason } from '../agent-events.js';
import { createAgentRun, type AgentBindings, type AgentProfile } from '../create-agent-run.js';
import { DELEGATE_TOOL_NAME } from '../lanes/lane-reducers.js';
import { runHandleOf } from '../run-handle.js';

/** A sub-agent to run: what `runSubagent` receives. */
export interface SubagentRequest {
  /** `<parent context id>/subagent/<call id>`: the same for every execution of the delegating call. */
  readonly contextId: string;
  /** The sub-agent's profile, scope `subagent`. */
  readonly profile: AgentProfile;
  readonly task: string;
  /** The parent's signal: cancelling the parent cancels the sub-agent. */
  readonly signal: AbortSignal;
}

/** How a sub-agent ended: what the delegate tool reads back. */
export interface SubagentResult {
  readonly stopReason: AgentStopReason;
  readonly text: string;
  readonly turns: number;
}

export type DelegateToolOptions =
  | {
      /** The sub-agent: its own profile (run with scope `subagent`) ... */
      readonly profile: AgentProfile;
      /** ... and its own bindings: model, tools, stores and budget (its configuration); run here by `createAgentRun`. */
      readonly bindings: AgentBindings;
      readonly runSubagent?: undefined;
    }
  | {
      readonly profile: AgentProfile;
      readonly bindings?: undefined;
      /**
       * Runs the sub-agent elsewhere instead, such as a durable workflow of
       * its own that the parent awaits (the run service). Called once per
       * execution of the delegating call; a durable runner keys its child
       * by `contextId` so that a replay awaits the same child.
       */
      readonly runSubagent: (request: SubagentRequest) => Promise<SubagentResult>;
    };

/**
 * The `delegate` tool: starts a child run with its own context id
 * (`<parent>/subagent/<call id>`), scope and budget, through `createAgentRun`
 * or the given `runSubagent`. The parent's deadline is paused (an external
 * wait) while the child runs; the child runs under the parent's signal, so
 * cancelling the parent cancels it. The child's final text comes back as the
 * tool result and, through the delegation lane, into the parent's state.
 */
export function createDelegateTool(options: DelegateToolOptions): ToolDefinition {
  const profile: AgentProfile = { ...options.profile, scope: 'subagent' };
  const runSubagent = options.runSubagent ?? ((request: SubagentRequest) => createAgentRun(request.profile, options.bindings!, { contextId: request.contextId, prompt: request.task, signal: request.signal }).execute());
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
        const result = await runSubagent({ contextId, profile, task, signal: context.signal });
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
