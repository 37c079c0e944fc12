import { checkCanonicalHistory } from '../canonical-history-check.js';
import type { AssistantMessage, CanonicalHistory, CanonicalMessage, JsonValue, MediaPart, ToolCall } from '../messages.js';
import {
  type Fields,
  checkedMedia,
  readArray,
  readNonEmptyString,
  readOptionalString,
  readRecord,
  readString,
  readToolArguments,
  readJson,
  invalid,
  unexpected,
  unsupported,
} from './adapter-input.js';
import { type AdapterDiagnostic, mediaFromUrl, mediaNote, mediaUrl, parseDataUrl } from './media.js';
import { recognizeCheckpoint } from './checkpoint-recognition.js';

/** A content part of an OpenAI chat-completions message. */
export type OpenAIChatContentPart =
  | { type: 'text'; text: string }
  | { type: 'refusal'; refusal: string }
  | { type: 'image_url'; image_url: { url: string; detail?: 'auto' | 'low' | 'high' } }
  | { type: 'file'; file: { file_data?: string; file_id?: string; filename?: string } }
  | { type: 'input_audio'; input_audio: { data: string; format: 'wav' | 'mp3' } };

/** An OpenAI chat-completions message, as APIs and trajectory files carry it. */
export interface OpenAIChatMessage {
  role: 'system' | 'developer' | 'user' | 'assistant' | 'tool';
  content: string | null | OpenAIChatContentPart[];
  tool_calls?: Array<{ id: string; type?: 'function'; function: { name: string; arguments: string } }>;
  tool_call_id?: string;
  name?: string;
}

/** Audio formats `input_audio` takes, by media type. */
const AUDIO_FORMATS: Readonly<Record<string, 'wav' | 'mp3'>> = { 'audio/wav': 'wav', 'audio/x-wav': 'wav', 'audio/mpeg': 'mp3', 'audio/mp3': 'mp3' };

/** Which part types each role may carry. */
const PART_TYPES: Readonly<Record<OpenAIChatMessage['role'], ReadonlySet<string>>> = {
  system: new Set(['text']),
  developer: new Set(['text']),
  user: new Set(['text', 'image_url', 'file', 'input_audio']),
  assistant: new Set(['text', 'refusal']),
  tool: new Set(['text']),
};

/** Text and media of `content`: a string, null, or an array of parts (text parts are joined). */
function readContent(content: unknown, role: OpenAIChatMessage['role'], path: string): { text: string; media: MediaPart[] } {
  if (content === null || content === undefined) return { text: '', media: [] };
  if (typeof content === 'string') return { text: content, media: [] };
  const parts = readArray(content, path, 'a string, null or an array of content parts');
  let text = '';
  const media: MediaPart[] = [];
  parts.forEach((raw, index) => {
    const partPath = `${path}[${index}]`;
    const part = readRecord(raw, partPath, 'a content part object');
    const type = readString(part.type, `${partPath}.type`);
    if (!PART_TYPES[role].has(type)) throw unsupported(`${partPath}.type`, `a ${role} message cannot carry a "${type}" part here`);
    if (type === 'text') text += readString(part.text, `${partPath}.text`);
    else if (type === 'refusal') text += readString(part.refusal, `${partPath}.refusal`);
    else if (type === 'image_url') {
      const image = readRecord(part.image_url, `${partPath}.image_url`, 'an object with a url');
      media.push(checkedMedia(mediaFromUrl({ type: 'image', url: readString(image.url, `${partPath}.image_url.url`) }), partPath));
    } else if (type === 'file') {
      const file = readRecord(part.file, `${partPath}.file`, 'an object with file_data');
      if (file.file_data === undefined) throw unsupported(`${partPath}.file`, 'only inline file_data can be imported (a file_id refers to storage Strata cannot read)');
      const inline = parseDataUrl(readString(file.file_data, `${partPath}.file.file_data`));
      if (!inline) throw invalid(`${partPath}.file.file_data`, 'a base64 data URL', 'another string');
      const filename = readOptionalString(file.filename, `${partPath}.file.filename`);
      media.push(checkedMedia({ type: 'file', ...inline, ...(filename === undefined ? {} : { filename }) }, partPath));
    } else {
      const audio = readRecord(part.input_audio, `${partPath}.input_audio`, 'an object with data and format');
      const format = audio.format;
      if (format !== 'wav' && format !== 'mp3') throw unexpected(`${partPath}.input_audio.format`, '"wav" or "mp3"', format);
      media.push({ type: 'file', mediaType: format === 'wav' ? 'audio/wav' : 'audio/mpeg', data: readString(audio.data, `${partPath}.input_audio.data`) });
    }
  });
  return { text, media };
}

function readToolCalls(value: unknown, path: string): ToolCall[] {
  if (value === undefined || value === null) return [];
  const ids = new Set<string>();
  return readArray(value, path, 'an array of tool calls').map((raw, index): ToolCall => {
    const callPath = `${path}[${index}]`;
    const call = readRecord(raw, callPath, 'a tool call object');
    const id = readNonEmptyString(call.id, `${callPath}.id`);
    if (ids.has(id)) throw invalid(`${callPath}.id`, 'an id unique within the message', `"${id}" twice`);
    ids.add(id);
    if (call.type !== undefined && call.type !== 'function') throw unsupported(`${callPath}.type`, `only function tool calls can be imported, got ${JSON.stringify(call.type)}`);
    const fn = readRecord(call.function, `${callPath}.function`, 'an object with name and arguments');
    const name = readNonEmptyString(fn.name, `${callPath}.function.name`);
    const args = fn.arguments;
    const argumentsPath = `${callPath}.function.arguments`;
    // Some trajectory files store arguments already parsed.
    let input: JsonValue;
    if (typeof args === 'string') input = readToolArguments(args, argumentsPath);
    else if (args === undefined || args === null) input = {};
    else if (typeof args === 'object') input = readJson(args, argumentsPath);
    else throw unexpected(argumentsPath, 'a string of JSON arguments (or an already parsed object)', args);
    return { id, name, input };
  });
}

/**
 * One OpenAI chat message (`path` names it in errors); `toolNames` maps the
 * call ids seen so far to their tool names, for results that do not say.
 * DeepSeek's `reasoning_content` on an assistant message is kept as
 * (unsigned) reasoning.
 */
export function readOpenAIChatMessage(message: Fields, path: string, toolNames: Map<string, string>): CanonicalMessage {
  const role = message.role;
  if (role !== 'system' && role !== 'developer' && role !== 'user' && role !== 'assistant' && role !== 'tool') {
    throw unexpected(`${path}.role`, '"system", "developer", "user", "assistant" or "tool"', role);
  }
  const { text, media } = readContent(message.content, role, `${path}.content`);
  switch (role) {
    case 'system':
    case 'developer':
      return { role: 'system', content: text };
    case 'user':
      return media.length > 0 ? { role: 'user', content: text, media } : { role: 'user', content: text };
    case 'assistant': {
      const toolCalls = readToolCalls(message.tool_calls, `${path}.tool_calls`);
      for (const call of toolCalls) toolNames.set(call.id, call.name);
      const reasoning = readOptionalString(message.reasoning_content ?? undefined, `${path}.reasoning_content`);
      const assistant: AssistantMessage = reasoning ? { role: 'assistant', content: text, reasoning: [{ text: reasoning }] } : { role: 'assistant', content: text };
      return toolCalls.length > 0 ? { ...assistant, toolCalls } : assistant;
    }
    case 'tool': {
      // SWE-agent writes `tool_call_ids` (a list of one) for `tool_call_id`.
      const ids = message.tool_call_ids;
      const toolCallId =
        message.tool_call_id === undefined && Array.isArray(ids)
          ? readNonEmptyString(ids[0], `${path}.tool_call_ids[0]`)
          : readNonEmptyString(message.tool_call_id, `${path}.tool_call_id`);
      const toolName = readOptionalString(message.name, `${path}.name`) ?? toolNames.get(toolCallId) ?? 'unknown';
      return { role: 'tool', toolCallId, toolName, content: text };
    }
  }
}

/**
 * OpenAI chat messages (any JSON value) to canonical history, or one
 * `ContextInputError` naming the field (`messages[3].content: expected ...`).
 * Tool results get their tool name from `name` or from the call they answer;
 * images, files and audio in user messages become media; DeepSeek's
 * `reasoning_content` becomes reasoning. `path` names the
 * array in errors (`traj` for a tau-bench run).
 */
export function fromOpenAIChat(messages: unknown, options: { path?: string } = {}): CanonicalMessage[] {
  const path = options.path ?? 'messages';
  const toolNames = new Map<string, string>();
  return readArray(messages, path, 'an array of messages').map((raw, index) => {
    const where = `${path}[${index}]`;
    return recognizeCheckpoint(raw, readOpenAIChatMessage(readRecord(raw, where, 'a message object'), where, toolNames));
  });
}

/**
 * Arguments as JSON text, always: a string input (text the model sent that
 * was not JSON) goes back as a JSON string, which `fromOpenAIChat` reads back
 * as the same string.
 */
export function toolArgumentsText(input: JsonValue): string {
  return JSON.stringify(input);
}

function userPart(part: MediaPart): OpenAIChatContentPart | undefined {
  if (part.type === 'image') return { type: 'image_url', image_url: { url: mediaUrl(part) } };
  if (part.data === undefined) return undefined; // chat completions take files inline only
  const format = AUDIO_FORMATS[part.mediaType];
  if (format) return { type: 'input_audio', input_audio: { data: part.data, format } };
  return { type: 'file', file: { file_data: mediaUrl(part), ...(part.filename === undefined ? {} : { filename: part.filename }) } };
}

/**
 * Canonical history to OpenAI chat messages (the shape the provider-rules
 * oracle reads), with a diagnostic for each image or file the format cannot
 * carry (in tool messages, or a file given by URL); a text note takes its
 * place in the message.
 *
 * Total: a value that is not a canonical history is one `ContextInputError`
 * (`checkCanonicalHistory`, memoised per message), never a crash.
 */
export function toOpenAIChatDetailed(history: CanonicalHistory): { messages: OpenAIChatMessage[]; diagnostics: AdapterDiagnostic[] } {
  checkCanonicalHistory(history);
  const diagnostics: AdapterDiagnostic[] = [];
  const notSent = (index: number, parts: readonly MediaPart[], where: string) => {
    diagnostics.push({ code: 'ADAPTER_MEDIA_NOT_SENT', index, message: `message ${index}: ${parts.length} media part(s) not sent: ${where}` });
    return mediaNote(parts);
  };
  const messages = history.map((message, index): OpenAIChatMessage => {
    switch (message.role) {
      case 'system':
        return { role: 'system', content: message.content };
      case 'user': {
        if (!message.media?.length) return { role: 'user', content: message.content };
        const parts: OpenAIChatContentPart[] = message.content === '' ? [] : [{ type: 'text', text: message.content }];
        const unsent: MediaPart[] = [];
        for (const part of message.media) {
          const converted = userPart(part);
          if (converted) parts.push(converted);
          else unsent.push(part);
        }
        if (unsent.length > 0) parts.push({ type: 'text', text: notSent(index, unsent, 'chat completions take files inline only, not by URL') });
        return { role: 'user', content: parts };
      }
      case 'assistant': {
        const calls = message.toolCalls ?? [];
        if (calls.length === 0) return { role: 'assistant', content: message.content };
        return {
          role: 'assistant',
          content: message.content === '' ? null : message.content,
          tool_calls: calls.map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: toolArgumentsText(call.input) } })),
        };
      }
      case 'tool': {
        let content = message.content;
        if (message.media?.length) {
          const note = notSent(index, message.media, 'tool messages take text only');
          content = content === '' ? note : `${content}\n${note}`;
        }
        return { role: 'tool', tool_call_id: message.toolCallId, content };
      }
    }
  });
  return { messages, diagnostics };
}

/** `toOpenAIChatDetailed` without the diagnostics. */
export function toOpenAIChat(history: CanonicalHistory): OpenAIChatMessage[] {
  return toOpenAIChatDetailed(history).messages;
}

/** Tool-call arguments text to a JSON value; text that is not JSON is kept as a string. */
export function parseToolArguments(text: string): JsonValue {
  return readToolArguments(text, 'arguments');
}
