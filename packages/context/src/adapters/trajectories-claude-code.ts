// Claude Code session files (`~/.claude/projects/<project>/<session>.jsonl`):
// one JSON line per event; `user` and `assistant` lines carry Anthropic
// Messages content under `message`.
import type { ContextInputError } from '../errors/context-input-error.js';
import type { CanonicalMessage } from '../messages.js';
import { type Fields, isRecord, readArray, readOptionalString, readRecord, readString, unexpected } from './adapter-input.js';
import { readAnthropicAssistant, readAnthropicUser } from './anthropic-messages.js';
import { eachLine, StepHistory, trajectoryLines, type TrajectoryLine } from './trajectories-steps.js';

/** One conversation of a session file: the main thread, or one sub-agent's sidechain. */
export interface SessionThread {
  /** `session`, or `sidechain <agent id>` / `sidechain at line 12`. */
  readonly record: string;
  readonly messages: CanonicalMessage[];
}

/** Whether one parsed line looks like a Claude Code session line. */
export function isClaudeCodeLine(value: unknown): boolean {
  return isRecord(value) && (value.type === 'user' || value.type === 'assistant') && isRecord(value.message) && (typeof value.uuid === 'string' || typeof value.sessionId === 'string');
}

interface ThreadState {
  readonly record: string;
  readonly steps: StepHistory;
  readonly toolNames: Map<string, string>;
}

/**
 * The threads of a Claude Code session's lines:
 * the main thread first, then each sidechain. Only `user` and `assistant`
 * lines carry the conversation; `summary` (the session's title), `system`,
 * `file-history-snapshot` and other line types are left out. Assistant
 * lines that share a `message.id` are one model response streamed block by
 * block: they become one assistant message, its tool results (user lines of
 * `tool_result` blocks) right after it. A line whose `uuid` was already read
 * (a resumed session repeats its past) is read once; lines are read in file
 * order, so an edited or retried turn's branches both stay. Sidechains
 * (`isSidechain`: a sub-agent's own thread, started by a Task call) are not
 * part of the main history: each becomes a thread of its own, grouped by
 * `agentId` or by the line that starts it. A malformed line is an error
 * naming it (`line 4: message.content[1].type`): thrown, or given to
 * `onError` and left out.
 */
export function readClaudeCodeThreads(lines: readonly TrajectoryLine[], onError?: (error: ContextInputError) => void): SessionThread[] {
  const threads = new Map<string, ThreadState>();
  const threadOf = new Map<string, string>();
  const seen = new Set<string>();
  const thread = (key: string, record: string): ThreadState => {
    let state = threads.get(key);
    if (!state) threads.set(key, (state = { record, steps: new StepHistory(), toolNames: new Map() }));
    return state;
  };
  eachLine(lines, (line: TrajectoryLine) => {
    const entry = readRecord(line.value, 'line', 'a session line object');
    const type = readString(entry.type, 'type');
    if (type !== 'user' && type !== 'assistant') return;
    const uuid = readOptionalString(entry.uuid, 'uuid');
    if (uuid !== undefined && seen.has(uuid)) return;
    const state = entry.isSidechain === true ? thread(sidechainKey(entry, uuid, line, threadOf), `sidechain ${sidechainName(entry, line)}`) : thread('', 'session');
    readLine(entry, type, state);
    if (uuid !== undefined) seen.add(uuid);
  }, onError);
  const ordered = [...threads.entries()].sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : 0));
  return ordered.map(([, state]) => ({ record: state.record, messages: state.steps.build() }));
}

/** A sidechain's thread: its agent, else the thread of the line it answers, else a new one it starts. */
function sidechainKey(entry: Fields, uuid: string | undefined, line: TrajectoryLine, threadOf: Map<string, string>): string {
  const parent = typeof entry.parentUuid === 'string' ? threadOf.get(entry.parentUuid) : undefined;
  const key = typeof entry.agentId === 'string' && entry.agentId !== '' ? `agent ${entry.agentId}` : (parent ?? `from ${line.record}`);
  if (uuid !== undefined) threadOf.set(uuid, key);
  return key;
}

function sidechainName(entry: Fields, line: TrajectoryLine): string {
  return typeof entry.agentId === 'string' && entry.agentId !== '' ? entry.agentId : `at ${line.record}`;
}

/** Reads a whole line before changing the thread, so a malformed line leaves no part of itself behind. */
function readLine(entry: Fields, type: 'user' | 'assistant', state: ThreadState): void {
  const message = readRecord(entry.message, 'message', 'an object with role and content');
  if (message.role !== type) throw unexpected('message.role', `"${type}"`, message.role);
  const blocks =
    typeof message.content === 'string'
      ? [{ type: 'text', text: message.content }]
      : readArray(message.content, 'message.content', 'a string or an array of content blocks').map((block, index) => readRecord(block, `message.content[${index}]`, 'a content block'));
  // A tool name recorded by a line that then fails names no call: harmless.
  const names = state.toolNames;
  if (type === 'assistant') {
    const id = readOptionalString(message.id, 'message.id');
    const assistant = readAnthropicAssistant(blocks, 'message.content', names);
    const step = state.steps.step(id === undefined ? undefined : `message ${id}`);
    if (assistant.content !== '') step.text.push(assistant.content);
    step.reasoning.push(...(assistant.reasoning ?? []));
    for (const call of assistant.toolCalls ?? []) state.steps.call(step, call);
  } else {
    const read: CanonicalMessage[] = [];
    readAnthropicUser(blocks, 'message.content', names, read);
    for (const item of read) {
      if (item.role === 'tool') state.steps.result(item);
      else state.steps.push(item);
    }
  }
}

/**
 * A Claude Code session's main thread (JSONL text, or its lines parsed), or
 * one `ContextInputError` naming the line and field. A file of one
 * sub-agent's thread (every line a sidechain) gives that thread.
 */
export function fromClaudeCodeSession(session: unknown): CanonicalMessage[] {
  return readClaudeCodeThreads(trajectoryLines(session, 'JSONL text or an array of session lines'))[0]?.messages ?? [];
}
