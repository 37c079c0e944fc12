import { ContextInputError } from '../errors/context-input-error.js';
import type { CanonicalMessage } from '../messages.js';
import { fromOpenAIChat, parseToolArguments } from './openai-chat.js';

/** One tau-bench run (`historical_trajectories/*.json` entries): its `traj` is OpenAI chat. */
export function fromTauBenchRun(run: unknown): CanonicalMessage[] {
  const trajectory = (run as { traj?: unknown })?.traj;
  if (!Array.isArray(trajectory)) {
    throw new ContextInputError({ code: 'CONTEXT_TRAJECTORY_INVALID', culprit: 'traj', message: 'a tau-bench run needs a `traj` array' });
  }
  return fromOpenAIChat(trajectory);
}

/** A SWE-agent `.traj` file: its `history` holds OpenAI-style messages with `tool_call_ids`. */
export function fromSweAgentTrajectory(trajectory: unknown): CanonicalMessage[] {
  const history = (trajectory as { history?: unknown })?.history;
  if (!Array.isArray(history)) {
    throw new ContextInputError({ code: 'CONTEXT_TRAJECTORY_INVALID', culprit: 'history', message: 'a SWE-agent trajectory needs a `history` array' });
  }
  return fromOpenAIChat(history);
}

/**
 * A ShareGPT conversation (`from`: system / human / gpt / function_call /
 * observation). A `function_call` becomes an assistant tool call with id
 * `call_<index>`; an `observation` answers the nearest unanswered call before
 * it. An observation with no call to answer keeps a call id that matches
 * nothing (`orphan_<index>`): the assembler reports and handles it.
 */
export function fromShareGPT(conversation: { conversations?: unknown; system?: unknown }): CanonicalMessage[] {
  const turns = conversation.conversations;
  if (!Array.isArray(turns)) {
    throw new ContextInputError({ code: 'CONTEXT_TRAJECTORY_INVALID', culprit: 'conversations', message: 'a ShareGPT record needs a `conversations` array' });
  }
  const history: CanonicalMessage[] = [];
  if (typeof conversation.system === 'string' && conversation.system !== '') history.push({ role: 'system', content: conversation.system });
  let pending: { id: string; name: string } | undefined;
  turns.forEach((turn: { from?: unknown; value?: unknown }, index: number) => {
    const value = typeof turn?.value === 'string' ? turn.value : '';
    switch (turn?.from) {
      case 'system':
        history.push({ role: 'system', content: value });
        break;
      case 'human':
      case 'user':
        history.push({ role: 'user', content: value });
        pending = undefined;
        break;
      case 'gpt':
      case 'assistant':
        history.push({ role: 'assistant', content: value });
        pending = undefined;
        break;
      case 'function_call': {
        const parsed = parseToolArguments(value);
        const call = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? parsed : {};
        const name = typeof call.name === 'string' ? call.name : 'unknown';
        const id = `call_${index}`;
        history.push({ role: 'assistant', content: '', toolCalls: [{ id, name, input: call.arguments ?? {} }] });
        pending = { id, name };
        break;
      }
      case 'observation':
        history.push({ role: 'tool', toolCallId: pending?.id ?? `orphan_${index}`, toolName: pending?.name ?? 'unknown', content: value });
        pending = undefined;
        break;
      default:
        throw new ContextInputError({ code: 'CONTEXT_TRAJECTORY_INVALID', culprit: `conversations[${index}].from`, message: `conversations[${index}] has unknown speaker ${JSON.stringify(turn?.from)}` });
    }
  });
  return history;
}
