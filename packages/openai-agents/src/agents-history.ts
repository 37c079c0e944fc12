import type { AgentInputItem } from '@openai/agents-core';
import { ContextInputError, checkCanonicalHistory, type AssistantMessage, type CanonicalMessage, type ImportedMessage, type JsonValue, type MediaPart, type ReasoningPart, type ToolCall } from '@strata/context';

type Fields = Record<string, unknown>;

function invalid(path: string, message: string, code = 'CONTEXT_MESSAGE_INVALID'): ContextInputError {
  return new ContextInputError({ code, culprit: path, message: `${path}: ${message}` });
}

function dataUrl(url: string): { mediaType: string; data: string } | undefined {
  const match = /^data:([^;,]+)(?:;[^;,]*)*;base64,(.*)$/s.exec(url);
  return match ? { mediaType: match[1]!, data: match[2]! } : undefined;
}

function fromUrl(type: MediaPart['type'], url: string, filename?: string): MediaPart {
  const inline = dataUrl(url);
  const named = filename === undefined ? {} : { filename };
  if (inline) return { type, mediaType: inline.mediaType, data: inline.data, ...named };
  return { type, mediaType: type === 'image' ? 'image/*' : 'application/octet-stream', url, ...named };
}

/** The URL that stands for a provider file id in the canonical history (sent back as `{ id }`). */
const FILE_ID_SCHEME = 'openai-file-id:';

/** A media part given by a provider file id (`{ id }`): charged by the media rule, sent back as the id. */
function fromFileId(type: MediaPart['type'], id: string, filename?: string): MediaPart {
  return { type, mediaType: type === 'image' ? 'image/*' : 'application/octet-stream', url: `${FILE_ID_SCHEME}${encodeURIComponent(id)}`, ...(filename === undefined ? {} : { filename }) };
}

function base64Of(data: unknown, path: string): string {
  if (typeof data === 'string') return data;
  if (data instanceof Uint8Array) return Buffer.from(data).toString('base64');
  throw invalid(path, 'expected base64 text or bytes');
}

/** An `input_image` / `input_file` part of a message, or an `image` / `file` part of a tool output. */
function mediaOf(part: Fields, path: string): MediaPart {
  const filename = typeof part.filename === 'string' ? part.filename : undefined;
  if (part.type === 'input_image' || part.type === 'input_file') {
    const source = part.type === 'input_image' ? part.image : part.file;
    const type = part.type === 'input_image' ? 'image' : 'file';
    if (typeof source === 'string') return fromUrl(type, source, filename);
    if (typeof (source as Fields | undefined)?.url === 'string') return fromUrl(type, (source as Fields).url as string, filename);
    if (typeof (source as Fields | undefined)?.id === 'string' && (source as Fields).id !== '') return fromFileId(type, (source as Fields).id as string, filename);
    throw invalid(path, 'expected a URL, a data URL or a file id (`{ id }`)');
  }
  const type = part.type === 'image' ? 'image' : 'file';
  const source = part.type === 'image' ? part.image : part.file;
  if (typeof source === 'string') return fromUrl(type, source, filename);
  const fields = (source ?? {}) as Fields;
  const named = typeof fields.filename === 'string' ? { filename: fields.filename } : {};
  if (fields.data !== undefined) return { type, mediaType: typeof fields.mediaType === 'string' ? fields.mediaType : type === 'image' ? 'image/*' : 'application/octet-stream', data: base64Of(fields.data, `${path}.data`), ...named };
  if (typeof fields.url === 'string') return { ...fromUrl(type, fields.url), ...named };
  const id = typeof fields.id === 'string' && fields.id !== '' ? fields.id : typeof fields.fileId === 'string' && fields.fileId !== '' ? fields.fileId : undefined;
  if (id !== undefined) return { ...fromFileId(type, id), ...named };
  throw invalid(path, 'expected data, a URL or a file id');
}

/** Text and media of message content or a tool output: a string, one part, or a list of parts. */
function readParts(content: unknown, path: string): { text: string; media: MediaPart[] } {
  if (typeof content === 'string') return { text: content, media: [] };
  const parts = Array.isArray(content) ? content : [content];
  let text = '';
  const media: MediaPart[] = [];
  parts.forEach((raw: unknown, index) => {
    const partPath = Array.isArray(content) ? `${path}[${index}]` : path;
    if (typeof raw !== 'object' || raw === null) throw invalid(partPath, 'expected a content part object');
    const part = raw as Fields;
    if ((part.type === 'input_text' || part.type === 'output_text' || part.type === 'text') && typeof part.text === 'string') text += part.text;
    else if (part.type === 'refusal' && typeof part.refusal === 'string') text += part.refusal;
    else if (part.type === 'input_image' || part.type === 'input_file' || part.type === 'image' || part.type === 'file') media.push(mediaOf(part, partPath));
    else throw invalid(`${partPath}.type`, `unsupported content part type ${JSON.stringify(part.type)}`, 'CONTEXT_MESSAGE_UNSUPPORTED');
  });
  return { text, media };
}

function parseArguments(text: string): JsonValue {
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return text;
  }
}

/**
 * Items the model or the SDK made that Strata carries as they are, as part
 * of the assistant turn they belong to: hosted tool calls (web and file
 * search, code interpreter, image generation, MCP calls and listings),
 * computer, shell and apply-patch calls with their outputs, tool search,
 * compaction and items of types this SDK version does not name. They go back
 * unchanged while their turn is sent unchanged.
 */
const PASSED_THROUGH = new Set(['hosted_tool_call', 'computer_call', 'computer_call_result', 'shell_call', 'shell_call_output', 'apply_patch_call', 'apply_patch_call_output', 'tool_search_call', 'tool_search_output', 'compaction', 'unknown']);
/** Passed-through calls, and the outputs that answer them by call id: an output always travels in its call's turn. */
const PASSED_THROUGH_CALLS = new Set(['computer_call', 'shell_call', 'apply_patch_call', 'tool_search_call']);
const PASSED_THROUGH_OUTPUTS = new Set(['computer_call_result', 'shell_call_output', 'apply_patch_call_output', 'tool_search_output']);
const callIdOf = (fields: Fields): unknown => fields.callId ?? fields.call_id;
/** Inline data longer than this (screenshots, generated images) is charged as an image, not as its text. */
const INLINE_DATA_CHARS = 256;

/**
 * What a passed-through item is charged as: its JSON (what reaches the
 * provider, in about that size), inline data standing as an image marker. It
 * is also the assistant text the turn becomes if Strata must rewrite it.
 */
function passedThroughText(item: AgentInputItem, path: string): string {
  let json: string | undefined;
  try {
    json = JSON.stringify(item, (_key, value: unknown) => (typeof value === 'string' && value.length > INLINE_DATA_CHARS && value.startsWith('data:') ? '[inline data]' : value));
  } catch {
    json = undefined;
  }
  if (json === undefined) throw invalid(path, 'an item that cannot be written as JSON');
  return `[${String((item as Fields).type)}] ${json}\n`;
}

/** One assistant turn being gathered: its reasoning, message and function-call items, in order. */
interface AssistantRun {
  readonly items: AgentInputItem[];
  text: string;
  readonly reasoning: ReasoningPart[];
  readonly toolCalls: ToolCall[];
  /** The call ids of its passed-through calls. */
  readonly passedCalls: string[];
}

/**
 * Agent input items as canonical history, each with the items it came from.
 * Consecutive reasoning, assistant-message and function-call items are one
 * assistant message; a function-call result is one tool message; user and
 * system messages are one each. Hosted tool calls, computer, shell and patch
 * actions, compaction and unnamed items join the assistant turn they follow
 * (`PASSED_THROUGH`), and a computer, shell or patch output joins its
 * call's turn across that turn's function results; a handoff is a function call and its result. Images and
 * files given by a provider file id are media of their message. Anything
 * else is one `ContextInputError` naming the item.
 */
export function importAgentItems(items: readonly AgentInputItem[]): ImportedMessage<AgentInputItem[]>[] {
  const imported: ImportedMessage<AgentInputItem[]>[] = [];
  let run: AssistantRun | undefined;
  // Where each passed-through call went: the index of its assistant turn.
  const passedCallTurns = new Map<string, number>();
  const flush = (): void => {
    if (!run) return;
    const message: AssistantMessage = { role: 'assistant', content: run.text, ...(run.reasoning.length > 0 ? { reasoning: run.reasoning } : {}), ...(run.toolCalls.length > 0 ? { toolCalls: run.toolCalls } : {}) };
    for (const callId of run.passedCalls) passedCallTurns.set(callId, imported.length);
    imported.push({ message, origin: run.items });
    run = undefined;
  };
  /**
   * Joins a passed-through output to its call's turn when only that turn's
   * tool results came between (the SDK appends a step's function results
   * before its computer, shell and patch outputs), so no window ever keeps
   * the output without its call. True when it joined.
   */
  const joinedItsCall = (item: AgentInputItem, path: string): boolean => {
    const callId = callIdOf(item as Fields);
    const at = typeof callId === 'string' ? passedCallTurns.get(callId) : undefined;
    if (at === undefined) return false;
    for (let later = at + 1; later < imported.length; later += 1) if (imported[later]!.message.role !== 'tool') return false;
    const { message, origin } = imported[at]!;
    imported[at] = { message: { ...(message as AssistantMessage), content: message.content + passedThroughText(item, path) }, origin: [...(origin ?? []), item] };
    return true;
  };
  items.forEach((item, index) => {
    const path = `input[${index}]`;
    const fields = item as Fields;
    const type = fields.type ?? 'message';
    if (type === 'reasoning' || type === 'function_call' || (type === 'message' && fields.role === 'assistant') || PASSED_THROUGH.has(String(type))) {
      if (run === undefined && PASSED_THROUGH_OUTPUTS.has(String(type)) && joinedItsCall(item, path)) return;
      run ??= { items: [], text: '', reasoning: [], toolCalls: [], passedCalls: [] };
      run.items.push(item);
      if (PASSED_THROUGH_CALLS.has(String(type)) && typeof callIdOf(fields) === 'string') run.passedCalls.push(callIdOf(fields) as string);
      if (PASSED_THROUGH.has(String(type))) run.text += passedThroughText(item, path);
      else if (type === 'reasoning') {
        const text = readParts(fields.content ?? [], `${path}.content`).text;
        run.reasoning.push({ text, ...(fields.providerData ? { providerMetadata: { openai: fields.providerData as JsonValue } } : {}) });
      } else if (type === 'function_call') {
        if (typeof fields.callId !== 'string' || fields.callId === '') throw invalid(`${path}.callId`, 'a function call needs a call id');
        run.toolCalls.push({ id: fields.callId, name: String(fields.name), input: parseArguments(String(fields.arguments ?? '')) });
      } else run.text += readParts(fields.content, `${path}.content`).text;
      return;
    }
    flush();
    if (type === 'function_call_result') {
      const { text, media } = readParts(fields.output, `${path}.output`);
      imported.push({ message: { role: 'tool', toolCallId: String(fields.callId), toolName: String(fields.name), content: text, ...(media.length > 0 ? { media } : {}) }, origin: [item] });
    } else if (type === 'message' && (fields.role === 'system' || fields.role === 'developer')) {
      imported.push({ message: { role: 'system', content: readParts(fields.content, `${path}.content`).text }, origin: [item] });
    } else if (type === 'message' && fields.role === 'user') {
      const { text, media } = readParts(fields.content, `${path}.content`);
      imported.push({ message: media.length > 0 ? { role: 'user', content: text, media } : { role: 'user', content: text }, origin: [item] });
    } else {
      throw invalid(`${path}.type`, `items of type ${JSON.stringify(type)} cannot be carried`, 'CONTEXT_MESSAGE_UNSUPPORTED');
    }
  });
  flush();
  checkCanonicalHistory(imported.map(({ message }) => message));
  return imported;
}

function asUrl(part: MediaPart): string {
  return part.data !== undefined ? `data:${part.mediaType};base64,${part.data}` : part.url!;
}

/** A media part's source as the SDK takes it: a URL or data URL, or `{ id }` for a provider file id. */
function sourceOf(part: MediaPart): string | { id: string } {
  const url = asUrl(part);
  return url.startsWith(FILE_ID_SCHEME) ? { id: decodeURIComponent(url.slice(FILE_ID_SCHEME.length)) } : url;
}

/** A canonical message as agent input items (for what Strata wrote or changed). */
export function toAgentItems(message: CanonicalMessage): AgentInputItem[] {
  switch (message.role) {
    case 'system':
      return [{ role: 'system', content: message.content }];
    case 'user': {
      if (!message.media?.length) return [{ role: 'user', content: message.content }];
      const media = message.media.map((part) =>
        part.type === 'image' ? { type: 'input_image' as const, image: sourceOf(part) } : { type: 'input_file' as const, file: sourceOf(part), ...(part.filename === undefined ? {} : { filename: part.filename }) },
      );
      return [{ role: 'user', content: [...(message.content === '' ? [] : [{ type: 'input_text' as const, text: message.content }]), ...media] }];
    }
    case 'assistant':
      return [
        ...(message.reasoning ?? []).map((part): AgentInputItem => ({ type: 'reasoning', content: [{ type: 'input_text', text: part.text }] })),
        ...(message.content === '' ? [] : [{ role: 'assistant' as const, status: 'completed' as const, content: [{ type: 'output_text' as const, text: message.content }] }]),
        ...(message.toolCalls ?? []).map((call): AgentInputItem => ({ type: 'function_call', callId: call.id, name: call.name, arguments: typeof call.input === 'string' ? call.input : JSON.stringify(call.input), status: 'completed' })),
      ];
    case 'tool': {
      const output = !message.media?.length
        ? message.content
        : [
            ...(message.content === '' ? [] : [{ type: 'text' as const, text: message.content }]),
            ...message.media.map((part) => {
              const source = sourceOf(part);
              if (part.type === 'image') return { type: 'image' as const, image: typeof source === 'string' ? source : { fileId: source.id } };
              return { type: 'file' as const, file: { ...(typeof source === 'string' ? { url: source } : { id: source.id }), ...(part.filename === undefined ? {} : { filename: part.filename }) } };
            }),
          ];
      return [{ type: 'function_call_result', callId: message.toolCallId, name: message.toolName, status: 'completed', output } as AgentInputItem];
    }
  }
}
