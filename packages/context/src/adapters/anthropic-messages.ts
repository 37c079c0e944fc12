import { checkCanonicalHistory } from '../canonical-history-check.js';
import type { AssistantMessage, CanonicalHistory, CanonicalMessage, MediaPart, ReasoningPart, ToolCall } from '../messages.js';
import {
  type Fields,
  checkedMedia,
  invalid,
  readArray,
  readJson,
  readNonEmptyString,
  readOptionalBoolean,
  readOptionalString,
  readRecord,
  readString,
  unexpected,
  unsupported,
} from './adapter-input.js';
import { type AdapterDiagnostic, decodeBase64Text, encodeBase64Text, mediaNote } from './media.js';
import { recognizeCheckpoint } from './checkpoint-recognition.js';

export type AnthropicImageBlock = { type: 'image'; source: { type: 'base64'; media_type: string; data: string } | { type: 'url'; url: string } };
export type AnthropicDocumentBlock = {
  type: 'document';
  source: { type: 'base64'; media_type: string; data: string } | { type: 'url'; url: string } | { type: 'text'; media_type: 'text/plain'; data: string };
  title?: string;
};
export type AnthropicTextBlock = { type: 'text'; text: string };
/** What a `tool_result` block may hold besides a plain string. */
export type AnthropicToolResultContent = AnthropicTextBlock | AnthropicImageBlock | AnthropicDocumentBlock;

export type AnthropicContentBlock =
  | AnthropicTextBlock
  | AnthropicImageBlock
  | AnthropicDocumentBlock
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'redacted_thinking'; data: string }
  | { type: 'tool_use'; id: string; name: string; input: ToolCall['input'] }
  | { type: 'tool_result'; tool_use_id: string; content: string | AnthropicToolResultContent[]; is_error?: boolean };

export interface AnthropicMessage {
  role: 'user' | 'assistant';
  content: AnthropicContentBlock[];
}

export interface AnthropicRequestMessages {
  /** System messages joined by blank lines; absent when there are none. */
  system?: string;
  messages: AnthropicMessage[];
}

/** Image media types the Messages API takes. */
const IMAGE_MEDIA_TYPES = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);

function anthropicMetadata(part: { readonly providerMetadata?: ReasoningPart['providerMetadata'] }): Record<string, unknown> | undefined {
  const anthropic = part.providerMetadata?.anthropic;
  return anthropic && typeof anthropic === 'object' && !Array.isArray(anthropic) ? anthropic : undefined;
}

/** A media part as an Anthropic block, or undefined where the API cannot take it. */
function mediaBlock(part: MediaPart): AnthropicImageBlock | AnthropicDocumentBlock | undefined {
  const title = part.filename === undefined ? {} : { title: part.filename };
  if (part.type === 'image') {
    if (part.url !== undefined) return { type: 'image', source: { type: 'url', url: part.url } };
    return IMAGE_MEDIA_TYPES.has(part.mediaType) ? { type: 'image', source: { type: 'base64', media_type: part.mediaType, data: part.data! } } : undefined;
  }
  if (part.mediaType === 'application/pdf') {
    return { type: 'document', source: part.url !== undefined ? { type: 'url', url: part.url } : { type: 'base64', media_type: part.mediaType, data: part.data! }, ...title };
  }
  if (part.mediaType === 'text/plain' && part.data !== undefined) {
    const text = decodeBase64Text(part.data);
    return text === undefined ? undefined : { type: 'document', source: { type: 'text', media_type: 'text/plain', data: text }, ...title };
  }
  return undefined;
}

/**
 * Canonical history to Anthropic Messages, with a diagnostic for each image
 * or file the API cannot take (a text note takes its place): system messages
 * move to `system`, tool results become `tool_result` blocks of a user turn,
 * and consecutive turns of one role are merged, as the API requires.
 * Reasoning goes back as `thinking` only where its signature was kept (or as
 * `redacted_thinking` where its redacted data was).
 *
 * Total: a value that is not a canonical history is one `ContextInputError`
 * (`checkCanonicalHistory`, memoised per message), never a crash.
 */
export function toAnthropicMessagesDetailed(history: CanonicalHistory): AnthropicRequestMessages & { diagnostics: AdapterDiagnostic[] } {
  checkCanonicalHistory(history);
  const system: string[] = [];
  const messages: AnthropicMessage[] = [];
  const diagnostics: AdapterDiagnostic[] = [];
  const push = (role: AnthropicMessage['role'], blocks: AnthropicContentBlock[]) => {
    if (blocks.length === 0) return;
    const last = messages.at(-1);
    if (last && last.role === role) last.content.push(...blocks);
    else messages.push({ role, content: blocks });
  };
  /** Text (when any) then media blocks; what cannot go becomes a note and a diagnostic. */
  const withMedia = (index: number, text: string, media: readonly MediaPart[]): AnthropicToolResultContent[] => {
    const blocks: AnthropicToolResultContent[] = text === '' ? [] : [{ type: 'text', text }];
    const unsent: MediaPart[] = [];
    for (const part of media) {
      const block = mediaBlock(part);
      if (block) blocks.push(block);
      else unsent.push(part);
    }
    if (unsent.length > 0) {
      diagnostics.push({ code: 'ADAPTER_MEDIA_NOT_SENT', index, message: `message ${index}: ${unsent.length} media part(s) not sent: Anthropic takes PNG, JPEG, GIF and WebP images, PDF and plain-text documents` });
      blocks.push({ type: 'text', text: mediaNote(unsent) });
    }
    return blocks;
  };
  history.forEach((message, index) => {
    switch (message.role) {
      case 'system':
        system.push(message.content);
        break;
      case 'user':
        push('user', message.media?.length ? withMedia(index, message.content, message.media) : [{ type: 'text', text: message.content }]);
        break;
      case 'tool': {
        const content = message.media?.length ? withMedia(index, message.content, message.media) : message.content;
        push('user', [{ type: 'tool_result', tool_use_id: message.toolCallId, content, ...(message.isError ? { is_error: true } : {}) }]);
        break;
      }
      case 'assistant': {
        const blocks: AnthropicContentBlock[] = [];
        for (const part of message.reasoning ?? []) {
          const metadata = anthropicMetadata(part);
          if (typeof metadata?.signature === 'string') blocks.push({ type: 'thinking', thinking: part.text, signature: metadata.signature });
          else if (typeof metadata?.redactedData === 'string') blocks.push({ type: 'redacted_thinking', data: metadata.redactedData });
        }
        if (message.content !== '') blocks.push({ type: 'text', text: message.content });
        for (const call of message.toolCalls ?? []) blocks.push({ type: 'tool_use', id: call.id, name: call.name, input: call.input });
        push('assistant', blocks);
        break;
      }
    }
  });
  return { ...(system.length > 0 ? { system: system.join('\n\n') } : {}), messages, diagnostics };
}

/** `toAnthropicMessagesDetailed` without the diagnostics. */
export function toAnthropicMessages(history: CanonicalHistory): AnthropicRequestMessages {
  const { diagnostics: _diagnostics, ...request } = toAnthropicMessagesDetailed(history);
  return request;
}

/** An image or document block as a media part. */
function readMediaBlock(block: Fields, type: 'image' | 'document', path: string): MediaPart {
  const source = readRecord(block.source, `${path}.source`, 'a source object');
  const filename = type === 'document' ? readOptionalString(block.title, `${path}.title`) : undefined;
  const named = (part: MediaPart): MediaPart => checkedMedia(filename === undefined ? part : { ...part, filename }, path);
  const partType = type === 'image' ? 'image' : 'file';
  switch (source.type) {
    case 'base64':
      return named({ type: partType, mediaType: readNonEmptyString(source.media_type, `${path}.source.media_type`), data: readString(source.data, `${path}.source.data`) });
    case 'url':
      return named({ type: partType, mediaType: type === 'image' ? 'image/*' : 'application/pdf', url: readString(source.url, `${path}.source.url`) });
    case 'text':
      if (type === 'document') return named({ type: 'file', mediaType: 'text/plain', data: encodeBase64Text(readString(source.data, `${path}.source.data`)) });
  }
  throw unsupported(`${path}.source.type`, `a ${type} source of type ${JSON.stringify(source.type)} cannot be imported`);
}

/** Text and media of a string or an array of text / image / document blocks. */
function readTextAndMedia(content: unknown, path: string): { text: string; media: MediaPart[] } {
  if (typeof content === 'string') return { text: content, media: [] };
  let text = '';
  const media: MediaPart[] = [];
  readArray(content, path, 'a string or an array of content blocks').forEach((raw, index) => {
    const blockPath = `${path}[${index}]`;
    const block = readRecord(raw, blockPath, 'a content block');
    if (block.type === 'text') text += readString(block.text, `${blockPath}.text`);
    else if (block.type === 'image' || block.type === 'document') media.push(readMediaBlock(block, block.type, blockPath));
    else throw unexpected(`${blockPath}.type`, '"text", "image" or "document"', block.type);
  });
  return { text, media };
}

function readSystem(value: unknown): CanonicalMessage[] {
  if (value === undefined || value === '') return [];
  if (typeof value === 'string') return [{ role: 'system', content: value }];
  return readArray(value, 'system', 'a string or an array of text blocks').map((raw, index) => {
    const block = readRecord(raw, `system[${index}]`, 'a text block');
    if (block.type !== 'text') throw unexpected(`system[${index}].type`, '"text"', block.type);
    return { role: 'system', content: readString(block.text, `system[${index}].text`) };
  });
}

/** An assistant turn's blocks (`path` names them in errors); each call's tool name is recorded in `toolNames`. */
export function readAnthropicAssistant(blocks: readonly Fields[], path: string, toolNames: Map<string, string>): AssistantMessage {
  const reasoning: ReasoningPart[] = [];
  const toolCalls: ToolCall[] = [];
  let text = '';
  blocks.forEach((block, index) => {
    const blockPath = `${path}[${index}]`;
    switch (block.type) {
      case 'text':
        text += readString(block.text, `${blockPath}.text`);
        break;
      case 'thinking':
        reasoning.push({ text: readString(block.thinking, `${blockPath}.thinking`), providerMetadata: { anthropic: { signature: readString(block.signature, `${blockPath}.signature`) } } });
        break;
      case 'redacted_thinking':
        reasoning.push({ text: '', providerMetadata: { anthropic: { redactedData: readString(block.data, `${blockPath}.data`) } } });
        break;
      case 'tool_use': {
        const id = readNonEmptyString(block.id, `${blockPath}.id`);
        if (toolCalls.some((call) => call.id === id)) throw invalid(`${blockPath}.id`, 'an id unique within the message', `"${id}" twice`);
        const name = readNonEmptyString(block.name, `${blockPath}.name`);
        toolNames.set(id, name);
        toolCalls.push({ id, name, input: readJson(block.input ?? {}, `${blockPath}.input`) });
        break;
      }
      default:
        throw unexpected(`${blockPath}.type`, '"text", "thinking", "redacted_thinking" or "tool_use"', block.type);
    }
  });
  return { role: 'assistant', content: text, ...(reasoning.length > 0 ? { reasoning } : {}), ...(toolCalls.length > 0 ? { toolCalls } : {}) };
}

/** A user turn: text and media gather into user messages; each `tool_result` becomes a tool message in place. */
export function readAnthropicUser(blocks: readonly Fields[], path: string, toolNames: Map<string, string>, history: CanonicalMessage[]): void {
  let text = '';
  let media: MediaPart[] = [];
  let started = false;
  const flush = () => {
    if (started) history.push(media.length > 0 ? { role: 'user', content: text, media } : { role: 'user', content: text });
    text = '';
    media = [];
    started = false;
  };
  blocks.forEach((block, index) => {
    const blockPath = `${path}[${index}]`;
    if (block.type === 'tool_result') {
      flush();
      const toolCallId = readNonEmptyString(block.tool_use_id, `${blockPath}.tool_use_id`);
      const content = block.content === undefined ? { text: '', media: [] } : readTextAndMedia(block.content, `${blockPath}.content`);
      const isError = readOptionalBoolean(block.is_error, `${blockPath}.is_error`);
      history.push({
        role: 'tool',
        toolCallId,
        toolName: toolNames.get(toolCallId) ?? 'unknown',
        content: content.text,
        ...(isError ? { isError: true } : {}),
        ...(content.media.length > 0 ? { media: content.media } : {}),
      });
      return;
    }
    started = true;
    if (block.type === 'text') text += readString(block.text, `${blockPath}.text`);
    else if (block.type === 'image' || block.type === 'document') media.push(readMediaBlock(block, block.type, blockPath));
    else throw unexpected(`${blockPath}.type`, '"text", "image", "document" or "tool_result"', block.type);
  });
  flush();
}

/**
 * Anthropic Messages (`{ system?, messages }`, any JSON value) to canonical
 * history, or one `ContextInputError` naming the field. `system` may be a
 * string or text blocks (one system message each); tool results take their
 * tool names from the `tool_use` blocks they answer and keep block content as
 * text plus media; images and documents become media.
 */
export function fromAnthropicMessages(request: unknown): CanonicalMessage[] {
  const fields = readRecord(request, 'request', 'an object with a messages array');
  const history = readSystem(fields.system);
  const toolNames = new Map<string, string>();
  readArray(fields.messages, 'messages', 'an array of messages').forEach((raw, index) => {
    const path = `messages[${index}]`;
    const message = readRecord(raw, path, 'a message object');
    if (message.role !== 'user' && message.role !== 'assistant') throw unexpected(`${path}.role`, '"user" or "assistant"', message.role);
    const blocks =
      typeof message.content === 'string'
        ? [{ type: 'text', text: message.content }]
        : readArray(message.content, `${path}.content`, 'a string or an array of content blocks').map((block, blockIndex) => readRecord(block, `${path}.content[${blockIndex}]`, 'a content block'));
    if (message.role === 'assistant') history.push(readAnthropicAssistant(blocks, `${path}.content`, toolNames));
    else readAnthropicUser(blocks, `${path}.content`, toolNames, history);
  });
  return history.map((message) => recognizeCheckpoint(undefined, message));
}
