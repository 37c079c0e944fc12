// Importers of recorded agent runs, and detection of their format by content.
import { ContextInputError } from '../errors/context-input-error.js';
import type { AssistantMessage, CanonicalMessage, ToolCall } from '../messages.js';
import { fromAnthropicMessages } from './anthropic-messages.js';
import { isRecord, readArray, readRecord, readString, readToolArguments, readJson, invalid, unexpected } from './adapter-input.js';
import { fromOpenAIChat } from './openai-chat.js';
import { recognizeCheckpoint } from './checkpoint-recognition.js';
import { fromClaudeCodeSession, isClaudeCodeLine, readClaudeCodeThreads } from './trajectories-claude-code.js';
import { fromCodexRollout, isCodexLine, readCodexRollout } from './trajectories-codex.js';
import { fromAlpacaRecord, fromLlamaFactoryRecord, isAlpacaRecord, isLlamaFactoryRecord } from './trajectories-llama-factory.js';
import { fromMiniSweAgentTrajectory, isMiniSweAgentTrajectory } from './trajectories-mini-swe-agent.js';
import { fromOpenHandsEvents, isOpenHandsEvent, isOpenHandsEventList, readOpenHandsEvents } from './trajectories-openhands.js';
import { hasAgentTurn, inRecord } from './trajectories-steps.js';

/** The trajectory formats Strata imports. */
export type TrajectoryFormat =
  | 'openai'
  | 'anthropic'
  | 'tau-bench'
  | 'swe-agent'
  | 'mini-swe-agent'
  | 'openhands'
  | 'claude-code'
  | 'codex'
  | 'sharegpt'
  | 'llama-factory'
  | 'alpaca';

export const TRAJECTORY_FORMATS: readonly TrajectoryFormat[] = Object.freeze(['openai', 'anthropic', 'tau-bench', 'swe-agent', 'mini-swe-agent', 'openhands', 'claude-code', 'codex', 'sharegpt', 'llama-factory', 'alpaca'] as const);

/** Formats whose file is one session written line by line (JSONL), not one record per line. */
const SESSION_FORMATS: ReadonlySet<TrajectoryFormat> = new Set(['claude-code', 'codex']);

/** The tool name given to calls a transcript shows only as `None` (tau-bench `messages_display`). */
export const UNRECORDED_TOOL_NAME = 'unrecorded_tool';

/**
 * One tau-bench record: a result-file run (`historical_trajectories/*.json`
 * entries), whose `traj` is OpenAI chat, or a few-shot record that holds only
 * `messages_display` (see `fromTauBenchTranscript`).
 */
export function fromTauBenchRun(run: unknown): CanonicalMessage[] {
  const record = readRecord(run, 'run', 'an object with a traj array');
  if (record.traj === undefined && record.messages_display !== undefined) return fromTauBenchTranscript(readString(record.messages_display, 'messages_display'));
  return fromOpenAIChat(record.traj, { path: 'traj' });
}

const TRANSCRIPT_ROLE = /^(system|user|assistant|tool): ?/gm;

/**
 * A tau-bench few-shot transcript: role-prefixed turns (`user: …`,
 * `assistant: …`, `tool: …`), each running to the next line that starts with
 * a role. The transcript does not record calls, only their results: an
 * assistant turn followed by `tool:` turns made one call (named
 * `unrecorded_tool`, no arguments) per `tool:` turn, each `tool:` turn the
 * result of its call. The turn keeps its text (a model may write and call
 * in one turn); shown as `None` it had none. Text before the first role, or
 * a `tool:` turn with no assistant turn before it, is a `ContextInputError`.
 */
export function fromTauBenchTranscript(value: unknown): CanonicalMessage[] {
  const transcript = readString(value, 'messages_display');
  const turns: Array<{ role: string; text: string }> = [];
  const starts = [...transcript.matchAll(TRANSCRIPT_ROLE)];
  if (starts.length === 0 || transcript.slice(0, starts[0]!.index).trim() !== '') {
    throw invalid('messages_display', 'a transcript whose lines start with "user:", "assistant:" or "tool:"', 'text before the first role');
  }
  starts.forEach((match, index) => {
    const end = starts[index + 1]?.index ?? transcript.length;
    turns.push({ role: match[1]!, text: transcript.slice(match.index! + match[0].length, end).replace(/\s+$/, '') });
  });
  const history: CanonicalMessage[] = [];
  let caller: { message: AssistantMessage; at: number } | undefined;
  turns.forEach(({ role, text }, index) => {
    if (role === 'assistant') {
      caller = { message: { role: 'assistant', content: text, toolCalls: [] }, at: history.length };
      history.push(caller.message);
      return;
    }
    if (role === 'tool') {
      if (!caller) throw invalid(`messages_display turn ${index + 1}`, 'a tool turn after an assistant turn', 'a tool turn with no assistant turn before it');
      const call: ToolCall = { id: `call_${index}`, name: UNRECORDED_TOOL_NAME, input: {} };
      // `None`: the turn had no text, only calls.
      caller.message = { ...caller.message, content: caller.message.content === 'None' ? '' : caller.message.content, toolCalls: [...caller.message.toolCalls!, call] };
      history[caller.at] = caller.message;
      history.push({ role: 'tool', toolCallId: call.id, toolName: call.name, content: text });
      return;
    }
    caller = undefined;
    history.push(role === 'system' ? { role: 'system', content: text } : { role: 'user', content: text });
  });
  // An assistant turn with no tool turn after it made no call: its text as written (`None` included).
  return history.map((message) => (message.role === 'assistant' && message.toolCalls?.length === 0 ? { role: 'assistant', content: message.content } : message));
}

/**
 * A SWE-agent `.traj` file, in either of its forms. With function calling,
 * `history` holds OpenAI-style messages (`tool_calls`, `tool_call_ids`). In
 * the text form, an assistant entry carries `thought` and `action` (a
 * command line) and the next user-role entry is the command's observation:
 * the action becomes one tool call (named after the command's first word,
 * input `{ command }`) and the observation its result, so observations can
 * be masked and never become the task anchor.
 */
export function fromSweAgentTrajectory(trajectory: unknown): CanonicalMessage[] {
  const record = readRecord(trajectory, 'trajectory', 'an object with a history array');
  const history = readArray(record.history, 'history', 'an array of messages');
  const textForm = history.some((entry) => isRecord(entry) && entry.role === 'assistant' && typeof entry.action === 'string' && entry.tool_calls === undefined);
  return textForm ? fromSweAgentTextHistory(history) : fromOpenAIChat(history, { path: 'history' });
}

function fromSweAgentTextHistory(entries: readonly unknown[]): CanonicalMessage[] {
  const history: CanonicalMessage[] = [];
  let pending: ToolCall | undefined;
  entries.forEach((raw, index) => {
    const path = `history[${index}]`;
    const entry = readRecord(raw, path, 'a message object');
    const content = textOf(entry.content, `${path}.content`);
    switch (entry.role) {
      case 'system':
        history.push({ role: 'system', content });
        pending = undefined;
        break;
      case 'user':
      case 'tool':
        if (pending) {
          history.push({ role: 'tool', toolCallId: pending.id, toolName: pending.name, content });
          pending = undefined;
        } else history.push({ role: 'user', content });
        break;
      case 'assistant': {
        const action = entry.action === undefined ? '' : readString(entry.action, `${path}.action`).trim();
        if (action === '') {
          history.push({ role: 'assistant', content });
          pending = undefined;
          break;
        }
        const thought = entry.thought === undefined ? content : readString(entry.thought, `${path}.thought`);
        pending = { id: `call_${index}`, name: action.split(/\s/, 1)[0]!, input: { command: action } };
        history.push({ role: 'assistant', content: thought, toolCalls: [pending] });
        break;
      }
      default:
        throw unexpected(`${path}.role`, '"system", "user", "assistant" or "tool"', entry.role);
    }
  });
  return history;
}

/** SWE-agent content: a string, or text parts (`{ type: 'text', text }`). */
function textOf(value: unknown, path: string): string {
  if (typeof value === 'string') return value;
  return readArray(value, path, 'a string or an array of text parts')
    .map((part, index) => readString(readRecord(part, `${path}[${index}]`, 'a text part').text, `${path}[${index}].text`))
    .join('');
}

/**
 * A ShareGPT conversation (`from`: system / human / gpt / function_call /
 * observation). A `function_call` (JSON text `{"name", "arguments"}`) becomes
 * an assistant tool call with id `call_<index>`; an `observation` answers the
 * nearest unanswered call before it. An observation with no call to answer
 * keeps a call id that matches nothing (`orphan_<index>`): the assembler
 * reports and handles it. A preference record (`chosen` / `rejected`, as
 * LLaMA-Factory's DPO data) replays `chosen` as its last turn. Any other
 * shape is one `ContextInputError`.
 */
export function fromShareGPT(record: unknown): CanonicalMessage[] {
  const conversation = readRecord(record, 'record', 'an object with a conversations array');
  const recorded = readArray(conversation.conversations, 'conversations', 'an array of turns');
  // A preference record (LLaMA-Factory ranking data) replays its chosen answer as the last turn; the rejected one is not part of the run.
  const turns = conversation.chosen === undefined ? recorded : [...recorded, conversation.chosen];
  const history: CanonicalMessage[] = [];
  if (conversation.system !== undefined) {
    const system = readString(conversation.system, 'system');
    if (system !== '') history.push({ role: 'system', content: system });
  }
  let pending: { id: string; name: string } | undefined;
  turns.forEach((raw, index) => {
    const path = index < recorded.length ? `conversations[${index}]` : 'chosen';
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

// --- Detection by content -----------------------------------------------------

/** Anthropic-only content blocks; OpenAI chat has `tool_calls` and `tool` messages instead. */
const ANTHROPIC_BLOCKS = new Set(['tool_use', 'tool_result', 'thinking', 'redacted_thinking', 'document']);

function looksAnthropic(messages: readonly unknown[]): boolean {
  return messages.some(
    (message) => isRecord(message) && Array.isArray(message.content) && message.content.some((block) => isRecord(block) && typeof block.type === 'string' && ANTHROPIC_BLOCKS.has(block.type)),
  );
}

const isMessageArray = (value: unknown): value is unknown[] => Array.isArray(value) && value.length > 0 && value.every((item) => isRecord(item) && typeof item.role === 'string');

/**
 * The format of one record, read from its fields, or undefined when none
 * fits: a list of events with `action` / `observation` (bare or as
 * `history`) is OpenHands; `traj` or `messages_display` tau-bench;
 * `instruction` with `output` or `chosen` Alpaca; `history` SWE-agent;
 * `conversations` ShareGPT; `chosen_messages`, or messages of `{ type, value }`
 * parts, LLaMA-Factory; messages with `trajectory_format` mini-swe-agent, an
 * `exit` record or `extra` fields mini-SWE-agent; a message array (bare or
 * as `messages`) OpenAI chat, unless its blocks (`tool_use`, `tool_result`,
 * `thinking`) or a top-level `system` say Anthropic Messages; one Claude
 * Code or Codex session line its session format.
 */
export function detectTrajectoryFormat(record: unknown): TrajectoryFormat | undefined {
  if (isOpenHandsEventList(record)) return 'openhands';
  if (isMessageArray(record)) return record.some((message) => isRecord(message) && message.role === 'exit') ? 'mini-swe-agent' : looksAnthropic(record) ? 'anthropic' : 'openai';
  if (!isRecord(record)) return undefined;
  if (record.traj !== undefined || typeof record.messages_display === 'string') return 'tau-bench';
  if (isAlpacaRecord(record)) return 'alpaca';
  if (Array.isArray(record.history)) return isOpenHandsEventList(record.history) ? 'openhands' : 'swe-agent';
  if (Array.isArray(record.conversations)) return 'sharegpt';
  if (isLlamaFactoryRecord(record)) return 'llama-factory';
  if (isMiniSweAgentTrajectory(record)) return 'mini-swe-agent';
  if (Array.isArray(record.messages)) return record.system !== undefined || looksAnthropic(record.messages) ? 'anthropic' : 'openai';
  if (isClaudeCodeLine(record)) return 'claude-code';
  if (isCodexLine(record)) return 'codex';
  return undefined;
}

/**
 * The session format of a JSONL file whose lines are one run (Claude Code,
 * Codex, or OpenHands events one per line), or undefined when its lines are
 * records of their own.
 */
function detectSessionFormat(values: readonly unknown[]): TrajectoryFormat | undefined {
  if (values.some(isClaudeCodeLine)) return 'claude-code';
  if (values.some(isCodexLine)) return 'codex';
  // The first Codex rollouts: a metadata line (`id`, `timestamp`), then bare response items.
  const [first, ...rest] = values;
  if (isRecord(first) && typeof first.id === 'string' && typeof first.timestamp === 'string' && first.type === undefined && rest.some((value) => isRecord(value) && value.type === 'message' && typeof value.role === 'string' && value.payload === undefined)) return 'codex';
  if (values.length > 1 && values.every(isOpenHandsEvent)) return 'openhands';
  return undefined;
}

/** One record in the named format, to canonical history; any other shape is a `ContextInputError` naming the field. */
export function fromTrajectoryRecord(record: unknown, format: TrajectoryFormat): CanonicalMessage[] {
  const lines = Array.isArray(record) || typeof record === 'string' ? record : [record];
  switch (format) {
    case 'openai':
      return Array.isArray(record) ? fromOpenAIChat(record) : fromOpenAIChat(readRecord(record, 'record', 'a message array or an object with messages').messages);
    case 'anthropic':
      return fromAnthropicMessages(Array.isArray(record) ? { messages: record } : record);
    case 'tau-bench':
      return fromTauBenchRun(record);
    case 'swe-agent':
      return fromSweAgentTrajectory(record);
    case 'mini-swe-agent':
      return fromMiniSweAgentTrajectory(record);
    case 'openhands':
      return fromOpenHandsEvents(record);
    case 'claude-code':
      return fromClaudeCodeSession(lines);
    case 'codex':
      return fromCodexRollout(lines);
    case 'sharegpt':
      return fromShareGPT(record);
    case 'llama-factory':
      return fromLlamaFactoryRecord(record);
    case 'alpaca':
      return fromAlpacaRecord(record);
  }
}

/** One conversation of a trajectory file. */
export interface ImportedTrajectory {
  /**
   * Where in the file: `record`, `[3]` (an array of records), `line 4`
   * (JSONL of records), or for a session file `session` (its main thread),
   * `sidechain <agent>` (a Claude Code sub-agent's thread) or `events`.
   */
  readonly record: string;
  readonly format: TrajectoryFormat;
  readonly messages: CanonicalMessage[];
}

export interface TrajectoryImport {
  readonly trajectories: readonly ImportedTrajectory[];
  /** One per record that could not be imported; `culprit` starts with the record (`line 4: traj[2].role`). */
  readonly errors: readonly ContextInputError[];
}

export interface ImportTrajectoriesOptions {
  /** Default `auto`: each record's format is detected from its content. */
  readonly format?: TrajectoryFormat | 'auto';
}

/**
 * The conversations of one trajectory file's text: a JSON document (one
 * record, a message array, a list of events, or an array of records) or
 * JSONL: one record per line, or one session written line by line (Claude
 * Code, whose sub-agents' sidechains come out as trajectories of their own;
 * Codex; OpenHands events), told apart by content. A record (or session
 * line) that is malformed gives an error naming the record and the field,
 * and the others still import. A file that is empty, not JSON (a truncated
 * document) or holds no record of a known format throws one
 * `ContextInputError` (code `CONTEXT_TRAJECTORY_INVALID` or
 * `CONTEXT_TRAJECTORY_FORMAT_UNKNOWN`); so does a file whose records all
 * import and hold no agent turn at all (`CONTEXT_TRAJECTORY_NO_AGENT_TURNS`):
 * nothing in it can be replayed.
 */
export function importTrajectories(text: string, options: ImportTrajectoriesOptions = {}): TrajectoryImport {
  const format = options.format ?? 'auto';
  const { records, jsonl } = splitRecords(text);
  const trajectories: ImportedTrajectory[] = [];
  const errors: ContextInputError[] = [];
  const sessionFormat = format === 'auto' ? (jsonl ? detectSessionFormat(records.map((record) => record.value)) : undefined) : SESSION_FORMATS.has(format) || (format === 'openhands' && jsonl) ? format : undefined;
  if (sessionFormat && jsonl) {
    for (const record of records) if (record.error) errors.push(inRecord(record.record, record.error));
    const lines = records.filter((record) => !record.error).map(({ record, value }) => ({ record, value }));
    const collect = (error: ContextInputError) => errors.push(error);
    const threads =
      sessionFormat === 'claude-code'
        ? readClaudeCodeThreads(lines, collect)
        : sessionFormat === 'codex'
          ? [{ record: 'session', messages: readCodexRollout(lines, collect) }]
          : [{ record: 'events', messages: readOpenHandsEvents(lines, collect) }];
    for (const thread of threads) trajectories.push({ record: thread.record, format: sessionFormat, messages: thread.messages });
    return withAgentTurns({ trajectories, errors });
  }
  const whole = sessionFormat !== undefined ? [{ record: 'record', value: JSON.parse(text) as unknown }] : records;
  for (const { record, value, error } of whole) {
    try {
      if (error) throw error;
      const recordFormat = format === 'auto' ? detectTrajectoryFormat(value) : format;
      if (!recordFormat) throw new ContextInputError({ code: UNKNOWN_FORMAT, culprit: 'record', message: `no known trajectory format fits (expected ${TRAJECTORY_HINT})` });
      trajectories.push({ record, format: recordFormat, messages: fromTrajectoryRecord(value, recordFormat) });
    } catch (caught) {
      if (!ContextInputError.isInstance(caught)) throw caught;
      errors.push(inRecord(record, caught));
    }
  }
  if (trajectories.length === 0 && errors.every((error) => error.code === UNKNOWN_FORMAT)) {
    throw new ContextInputError({ code: UNKNOWN_FORMAT, culprit: 'file', message: `no record of a known trajectory format (expected ${TRAJECTORY_HINT})` });
  }
  return withAgentTurns({ trajectories, errors });
}

/**
 * The import, unless every record imported and none holds an agent turn:
 * then one error saying so. (Where records were refused, those errors say
 * what is wrong with the file.)
 */
function withAgentTurns(result: TrajectoryImport): TrajectoryImport {
  const { trajectories, errors } = result;
  if (errors.length === 0 && trajectories.length > 0 && !trajectories.some((trajectory) => hasAgentTurn(trajectory.messages))) {
    throw new ContextInputError({
      code: 'CONTEXT_TRAJECTORY_NO_AGENT_TURNS',
      culprit: 'file',
      message: `the file holds no agent turns: none of its ${trajectories.length} conversation(s) has an assistant message, so there is nothing to replay`,
    });
  }
  return result;
}

const UNKNOWN_FORMAT = 'CONTEXT_TRAJECTORY_FORMAT_UNKNOWN';
const TRAJECTORY_HINT =
  'OpenAI or Anthropic messages, a tau-bench traj or messages_display, a SWE-agent history, a mini-SWE-agent trajectory, OpenHands events, a Claude Code session, a Codex rollout, ShareGPT conversations, LLaMA-Factory messages or an Alpaca instruction';

function trajectoryError(culprit: string, message: string, cause?: unknown): ContextInputError {
  return new ContextInputError({ code: 'CONTEXT_TRAJECTORY_INVALID', culprit, message, cause });
}

interface RawRecord {
  readonly record: string;
  readonly value?: unknown;
  readonly error?: ContextInputError;
}

function splitRecords(text: string): { records: RawRecord[]; jsonl: boolean } {
  if (text.trim() === '') throw trajectoryError('file', 'the file is empty');
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (cause) {
    const lines = text.split('\n');
    const filled = lines.flatMap((line, index) => (line.trim() === '' ? [] : [{ line, number: index + 1 }]));
    // JSONL: more than one line, the first of which is a JSON document on its own.
    if (filled.length > 1 && parses(filled[0]!.line)) {
      const records = filled.map(({ line, number }): RawRecord => {
        try {
          return { record: `line ${number}`, value: JSON.parse(line) as unknown };
        } catch (lineCause) {
          return { record: `line ${number}`, error: trajectoryError('record', `not JSON (${(lineCause as Error).message})`, lineCause) };
        }
      });
      return { records, jsonl: true };
    }
    throw trajectoryError('file', `not JSON: ${(cause as Error).message} (a truncated file?)`, cause);
  }
  if (isMessageArray(document) || isOpenHandsEventList(document) || !Array.isArray(document)) return { records: [{ record: 'record', value: document }], jsonl: false };
  if (document.length === 0) throw trajectoryError('file', 'an empty array: no trajectories');
  return { records: document.map((value, index) => ({ record: `[${index}]`, value })), jsonl: false };
}

function parses(line: string): boolean {
  try {
    JSON.parse(line);
    return true;
  } catch {
    return false;
  }
}
