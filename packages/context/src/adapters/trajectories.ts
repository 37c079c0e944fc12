import type { CanonicalMessage } from '../messages.js';
import { readArray, readRecord, readString, readToolArguments, readJson, invalid, unexpected } from './adapter-input.js';
import { fromOpenAIChat } from './openai-chat.js';
import { recognizeCheckpoint } from './checkpoint-recognition.js';

/** One tau-bench run (`historical_trajectories/*.json` entries): its `traj` is OpenAI chat. */
export function fromTauBenchRun(run: unknown): CanonicalMessage[] {
  const record = readRecord(run, 'run', 'an object with a traj array');
  return fromOpenAIChat(record.traj, { path: 'traj' });
}

/** A SWE-agent `.traj` file: its `history` holds OpenAI-style messages with `tool_call_ids`. */
export function fromSweAgentTrajectory(trajectory: unknown): CanonicalMessage[] {
  const record = readRecord(trajectory, 'trajectory', 'an object with a history array');
  return fromOpenAIChat(record.history, { path: 'history' });
}

/**
 * A ShareGPT conversation (`from`: system / human / gpt / function_call /
 * observation). A `function_call` (JSON text `{"name", "arguments"}`) becomes
 * an assistant tool call with id `call_<index>`; an `observation` answers the
 * nearest unanswered call before it. An observation with no call to answer
 * keeps a call id that matches nothing (`orphan_<index>`): the assembler
 * reports and handles it. Any other shape is one `ContextInputError`.
 */
export function fromShareGPT(record: unknown): CanonicalMessage[] {
  const conversation = readRecord(record, 'record', 'an object with a conversations array');
  const turns = readArray(conversation.conversations, 'conversations', 'an array of turns');
  const history: CanonicalMessage[] = [];
  if (conversation.system !== undefined) {
    const system = readString(conversation.system, 'system');
    if (system !== '') history.push({ role: 'system', content: system });
  }
  let pending: { id: string; name: string } | undefined;
  turns.forEach((raw, index) => {
    const path = `conversations[${index}]`;
    const turn = readRecord(raw, path, 'a turn object');
    const value = readString(turn.value, `${path}.value`);
    switch (turn.from) {
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
        const call = readToolArguments(value, `${path}.value`);
        if (typeof call !== 'object' || call === null || Array.isArray(call) || typeof call.name !== 'string' || call.name === '') {
          throw invalid(`${path}.value`, 'a JSON object with a string name', typeof call === 'string' ? 'text that is not JSON' : 'another value');
        }
        // `arguments` is an object, or (in some exports) its JSON text.
        const args = call.arguments;
        const input = typeof args === 'string' ? readToolArguments(args, `${path}.value.arguments`) : args === undefined ? {} : readJson(args, `${path}.value.arguments`);
        const id = `call_${index}`;
        history.push({ role: 'assistant', content: '', toolCalls: [{ id, name: call.name, input }] });
        pending = { id, name: call.name };
        break;
      }
      case 'observation':
        history.push({ role: 'tool', toolCallId: pending?.id ?? `orphan_${index}`, toolName: pending?.name ?? 'unknown', content: value });
        pending = undefined;
        break;
      default:
        throw unexpected(`${path}.from`, '"system", "human", "user", "gpt", "assistant", "function_call" or "observation"', turn.from);
    }
  });
  return history.map((message) => recognizeCheckpoint(undefined, message));
}
