// mini-SWE-agent trajectories (`*.traj.json`): `{ info, messages,
// trajectory_format }`, messages in OpenAI chat form with an `extra` field of
// the agent's own; v2 (`mini-swe-agent-1.1`) ends every run with an
// `{"role": "exit"}` record.
import type { CanonicalMessage, ToolCall } from '../messages.js';
import { type Fields, isRecord, readArray, readRecord, readString, unexpected, invalid } from './adapter-input.js';
import { readOpenAIChatMessage } from './openai-chat.js';
import { recognizeCheckpoint } from './checkpoint-recognition.js';
import { ResponseItemReader } from './trajectories-codex.js';

/** The command block of the text-based models (v1's `bash`, v2's `mswea_bash_command`). */
const COMMAND_BLOCK = /```(?:bash|mswea_bash_command)\s*\n([\s\S]*?)\n```/g;

/** Whether a record is a mini-SWE-agent trajectory: its format says so, or a message is an exit record or carries `extra`. */
export function isMiniSweAgentTrajectory(record: unknown): boolean {
  if (!isRecord(record) || !Array.isArray(record.messages)) return false;
  if (typeof record.trajectory_format === 'string' && record.trajectory_format.startsWith('mini-swe-agent')) return true;
  return record.messages.some((message) => isRecord(message) && (message.role === 'exit' || isRecord(message.extra)));
}

/**
 * A mini-SWE-agent trajectory to canonical history, or one
 * `ContextInputError` naming the message and field. With a tool-calling
 * model the messages are OpenAI chat (`tool_calls`, `tool` results). With a
 * text-based model an assistant message's actions (`extra.actions`, or in
 * v1 files its one command block) become `bash` calls (input `{ command }`)
 * and the user messages after it their results, one per action, so
 * observations can be masked and never become the task anchor (a format
 * error or other interruption, `extra.interrupt_type`, stays a user
 * message). With the Responses API model, responses (`object: "response"`)
 * and `function_call_output` items are read as Codex reads them. DeepSeek's
 * `reasoning_content` is kept as reasoning. The `exit` record ends the run:
 * it is no message (its status and submission are the run's outcome, not
 * model input), an action it cut short stays without a result, and a
 * message after it is an error. Another role is an error naming it.
 */
export function fromMiniSweAgentTrajectory(trajectory: unknown): CanonicalMessage[] {
  // A bare message list (the messages alone) reads the same.
  const record = Array.isArray(trajectory) ? { messages: trajectory } : readRecord(trajectory, 'trajectory', 'an object with a messages array');
  const messages = readArray(record.messages, 'messages', 'an array of messages');
  const version1 = record.trajectory_format === 'mini-swe-agent-1';
  const reader = new ResponseItemReader();
  const { steps } = reader;
  const toolNames = new Map<string, string>();
  let pending: ToolCall[] = [];
  let exited: number | undefined;
  messages.forEach((raw, index) => {
    const path = `messages[${index}]`;
    if (exited !== undefined) throw invalid(path, `nothing after the exit record (messages[${exited}])`, 'another message');
    const message = readRecord(raw, path, 'a message object');
    if (message.object === 'response') {
      readArray(message.output, `${path}.output`, 'an array of response items').forEach((item, itemIndex) => reader.read(item, `${path}.output[${itemIndex}]`));
      pending = [];
      return;
    }
    if (message.role === undefined && typeof message.type === 'string') {
      reader.read(message, path);
      return;
    }
    if (message.role === 'exit') {
      exited = index;
      return;
    }
    const extra = message.extra === undefined || message.extra === null ? undefined : readRecord(message.extra, `${path}.extra`, 'an object');
    if (message.role === 'user' && pending.length > 0 && extra?.interrupt_type === undefined) {
      const call = pending.shift()!;
      const content = readOpenAIChatMessage(message, path, toolNames).content;
      steps.result({ role: 'tool', toolCallId: call.id, toolName: call.name, content });
      return;
    }
    if (message.role !== 'system' && message.role !== 'developer' && message.role !== 'user' && message.role !== 'assistant' && message.role !== 'tool') {
      throw unexpected(`${path}.role`, '"system", "user", "assistant", "tool" or "exit"', message.role);
    }
    pending = [];
    const read = recognizeCheckpoint(raw, readOpenAIChatMessage(message, path, toolNames));
    if (read.role === 'tool') return steps.result(read);
    if (read.role !== 'assistant') return steps.push(read);
    const step = steps.step();
    if (read.content !== '') step.text.push(read.content);
    step.reasoning.push(...(read.reasoning ?? []));
    const calls = read.toolCalls ?? textActions(message, extra, version1, path).map((command, number, all): ToolCall => ({ id: all.length > 1 ? `call_${index}_${number}` : `call_${index}`, name: 'bash', input: { command } }));
    for (const call of calls) steps.call(step, call);
    if (!read.toolCalls) pending = [...calls];
  });
  return steps.build();
}

/** The commands of a text-based assistant message: `extra.actions`, or (v1) its one command block. */
function textActions(message: Fields, extra: Fields | undefined, version1: boolean, path: string): string[] {
  if (extra?.actions !== undefined) {
    return readArray(extra.actions, `${path}.extra.actions`, 'an array of actions').map((raw, index) => readString(readRecord(raw, `${path}.extra.actions[${index}]`, 'an action object').command, `${path}.extra.actions[${index}].command`));
  }
  if (!version1 || typeof message.content !== 'string') return [];
  const blocks = [...message.content.matchAll(COMMAND_BLOCK)];
  return blocks.length === 1 ? [blocks[0]![1]!.trim()] : [];
}
