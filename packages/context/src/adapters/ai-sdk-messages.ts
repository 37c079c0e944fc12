import { checkCanonicalHistory } from '../canonical-history-check.js';
import type { AssistantMessage, CanonicalHistory, CanonicalMessage, JsonValue, MediaPart, ReasoningPart, ToolCall } from '../messages.js';
import {
  type Fields,
  checkedMedia,
  invalid,
  readArray,
  readJson,
  readNonEmptyString,
  readOptionalString,
  readProviderOptions,
  readRecord,
  readString,
  unexpected,
  unsupported,
} from './adapter-input.js';
import { type AdapterDiagnostic, encodeBase64, imageMediaTypeOf, parseDataUrl } from './media.js';
import { recognizeCheckpoint } from './checkpoint-recognition.js';

type ProviderOptions = { [provider: string]: { [key: string]: JsonValue } };

type TextPart = { type: 'text'; text: string };
type ImagePart = { type: 'image'; image: string; mediaType?: string };
type FilePart = { type: 'file'; data: string; mediaType: string; filename?: string };
type ReasoningModelPart = { type: 'reasoning'; text: string; providerOptions?: ProviderOptions };
type ToolCallPart = { type: 'tool-call'; toolCallId: string; toolName: string; input: unknown; providerOptions?: ProviderOptions };
type ToolResultContentPart =
  | { type: 'text'; text: string }
  | { type: 'image-data'; data: string; mediaType: string }
  | { type: 'image-url'; url: string }
  | { type: 'file-data'; data: string; mediaType: string; filename?: string }
  | { type: 'file-url'; url: string; mediaType?: string };
type ToolResultPart = {
  type: 'tool-result';
  toolCallId: string;
  toolName: string;
  output: { type: 'text' | 'error-text'; value: string } | { type: 'json' | 'error-json'; value: JsonValue } | { type: 'content'; value: ToolResultContentPart[] };
};

/**
 * The AI SDK 6 `ModelMessage` shapes Strata writes, declared here
 * structurally (each assignable to `ModelMessage`) so `@strata/context`
 * depends on no SDK. Media go as strings: base64 data or a URL.
 */
export type AiSdkModelMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string | Array<TextPart | ImagePart | FilePart> }
  | { role: 'assistant'; content: string | Array<TextPart | ReasoningModelPart | ToolCallPart>; providerOptions?: ProviderOptions }
  | { role: 'tool'; content: ToolResultPart[] };

/**
 * Provider metadata as AI SDK provider options, which must be objects per
 * provider: an entry of another JSON type (possible in canonical metadata,
 * never produced by an importer) has no AI SDK form and is left out.
 */
function providerOptionsOf(metadata: { readonly [provider: string]: JsonValue } | undefined): { providerOptions?: ProviderOptions } {
  if (metadata === undefined) return {};
  const entries = Object.entries(metadata).filter(([, value]) => typeof value === 'object' && value !== null && !Array.isArray(value));
  return entries.length === 0 ? {} : { providerOptions: Object.fromEntries(entries) as ProviderOptions };
}

function contentPart(part: MediaPart): ToolResultContentPart {
  if (part.type === 'image') return part.data !== undefined ? { type: 'image-data', data: part.data, mediaType: part.mediaType } : { type: 'image-url', url: part.url! };
  if (part.data !== undefined) return { type: 'file-data', data: part.data, mediaType: part.mediaType, ...(part.filename === undefined ? {} : { filename: part.filename }) };
  return { type: 'file-url', url: part.url!, mediaType: part.mediaType };
}

function userPart(part: MediaPart): ImagePart | FilePart {
  const source = part.data ?? part.url!;
  if (part.type === 'image') return part.mediaType === 'image/*' ? { type: 'image', image: source } : { type: 'image', image: source, mediaType: part.mediaType };
  return { type: 'file', data: source, mediaType: part.mediaType, ...(part.filename === undefined ? {} : { filename: part.filename }) };
}

/**
 * Canonical history to AI SDK messages, with diagnostics: consecutive tool
 * results become one tool message; media go as image and file parts, and in
 * tool results as `content` output (which has no error flag: a failed result
 * with media is reported with `ADAPTER_ERROR_FLAG_NOT_SENT`).
 *
 * Total: a value that is not a canonical history is one `ContextInputError`
 * (`checkCanonicalHistory`, memoised per message), never a crash.
 */
export function toAiSdkMessagesDetailed(history: CanonicalHistory): { messages: AiSdkModelMessage[]; diagnostics: AdapterDiagnostic[] } {
  checkCanonicalHistory(history);
  const messages: AiSdkModelMessage[] = [];
  const diagnostics: AdapterDiagnostic[] = [];
  history.forEach((message, index) => {
    switch (message.role) {
      case 'system':
        messages.push({ role: 'system', content: message.content });
        break;
      case 'user':
        if (!message.media?.length) messages.push({ role: 'user', content: message.content });
        else messages.push({ role: 'user', content: [...(message.content === '' ? [] : [{ type: 'text' as const, text: message.content }]), ...message.media.map(userPart)] });
        break;
      case 'assistant': {
        const parts: Array<TextPart | ReasoningModelPart | ToolCallPart> = [];
        for (const part of message.reasoning ?? []) parts.push({ type: 'reasoning', text: part.text, ...providerOptionsOf(part.providerMetadata) });
        if (message.content !== '') parts.push({ type: 'text', text: message.content });
        for (const call of message.toolCalls ?? []) {
          parts.push({ type: 'tool-call', toolCallId: call.id, toolName: call.name, input: call.input, ...providerOptionsOf(call.providerMetadata) });
        }
        messages.push({ role: 'assistant', content: parts, ...providerOptionsOf(message.providerMetadata) });
        break;
      }
      case 'tool': {
        let output: ToolResultPart['output'];
        if (message.media?.length) {
          output = { type: 'content', value: [...(message.content === '' ? [] : [{ type: 'text' as const, text: message.content }]), ...message.media.map(contentPart)] };
          if (message.isError) diagnostics.push({ code: 'ADAPTER_ERROR_FLAG_NOT_SENT', index, message: `message ${index}: a failed tool result with media goes as content output, which has no error flag` });
        } else output = { type: message.isError ? 'error-text' : 'text', value: message.content };
        const part: ToolResultPart = { type: 'tool-result', toolCallId: message.toolCallId, toolName: message.toolName, output };
        const last = messages.at(-1);
        if (last?.role === 'tool') last.content.push(part);
        else messages.push({ role: 'tool', content: [part] });
        break;
      }
    }
  });
  return { messages, diagnostics };
}

/** `toAiSdkMessagesDetailed` without the diagnostics. */
export function toAiSdkMessages(history: CanonicalHistory): AiSdkModelMessage[] {
  return toAiSdkMessagesDetailed(history).messages;
}

/**
 * AI SDK `DataContent | URL` as a media source: a data URL or base64 string
 * is inline data, any other URL (string or `URL`) stays a URL, bytes are
 * encoded as base64. As the SDK does, a string that parses as a URL is one.
 */
function readDataContent(value: unknown, path: string): { data: string; mediaType?: string } | { url: string } {
  if (typeof value === 'string') {
    const inline = parseDataUrl(value);
    if (inline) return inline;
    if (/^[a-z][a-z0-9+.-]*:/i.test(value) && URL.canParse(value)) return { url: value };
    return { data: value };
  }
  if (value instanceof URL) return { url: value.href };
  if (value instanceof Uint8Array) return { data: encodeBase64(value) };
  if (value instanceof ArrayBuffer) return { data: encodeBase64(new Uint8Array(value)) };
  throw unexpected(path, 'base64 data, a URL or bytes', value);
}

function readUserContent(content: unknown, path: string): { text: string; media: MediaPart[] } {
  if (typeof content === 'string') return { text: content, media: [] };
  let text = '';
  const media: MediaPart[] = [];
  readArray(content, path, 'a string or an array of text, image and file parts').forEach((raw, index) => {
    const partPath = `${path}[${index}]`;
    const part = readRecord(raw, partPath, 'a content part object');
    if (part.type === 'text') {
      text += readString(part.text, `${partPath}.text`);
    } else if (part.type === 'image') {
      const source = readDataContent(part.image, `${partPath}.image`);
      const given = readOptionalString(part.mediaType, `${partPath}.mediaType`);
      const mediaType = given ?? ('mediaType' in source ? source.mediaType : undefined) ?? ('data' in source ? imageMediaTypeOf(source.data) : 'image/*');
      media.push(checkedMedia('url' in source ? { type: 'image', mediaType, url: source.url } : { type: 'image', mediaType, data: source.data }, partPath));
    } else if (part.type === 'file') {
      const source = readDataContent(part.data, `${partPath}.data`);
      const mediaType = readNonEmptyString(part.mediaType, `${partPath}.mediaType`);
      const filename = readOptionalString(part.filename, `${partPath}.filename`);
      const located = 'url' in source ? { url: source.url } : { data: source.data };
      media.push(checkedMedia({ type: 'file', mediaType, ...located, ...(filename === undefined ? {} : { filename }) }, partPath));
    } else {
      throw unexpected(`${partPath}.type`, '"text", "image" or "file"', part.type);
    }
  });
  return { text, media };
}

function readAssistant(message: Fields, path: string): AssistantMessage {
  const providerMetadata = readProviderOptions(message.providerOptions, `${path}.providerOptions`);
  const withMetadata = (assistant: AssistantMessage): AssistantMessage => (providerMetadata ? { ...assistant, providerMetadata } : assistant);
  if (typeof message.content === 'string') return withMetadata({ role: 'assistant', content: message.content });
  let text = '';
  const reasoning: ReasoningPart[] = [];
  const toolCalls: ToolCall[] = [];
  readArray(message.content, `${path}.content`, 'a string or an array of assistant parts').forEach((raw, index) => {
    const partPath = `${path}.content[${index}]`;
    const part = readRecord(raw, partPath, 'a content part object');
    const options = readProviderOptions(part.providerOptions, `${partPath}.providerOptions`);
    switch (part.type) {
      case 'text':
        text += readString(part.text, `${partPath}.text`);
        break;
      case 'reasoning':
        reasoning.push({ text: readString(part.text, `${partPath}.text`), ...(options ? { providerMetadata: options } : {}) });
        break;
      case 'tool-call': {
        const id = readNonEmptyString(part.toolCallId, `${partPath}.toolCallId`);
        if (toolCalls.some((call) => call.id === id)) throw invalid(`${partPath}.toolCallId`, 'an id unique within the message', `"${id}" twice`);
        if (part.providerExecuted === true) throw unsupported(partPath, 'provider-executed tool calls cannot be imported');
        const input = part.input === undefined ? {} : readJson(part.input, `${partPath}.input`);
        toolCalls.push({ id, name: readNonEmptyString(part.toolName, `${partPath}.toolName`), input, ...(options ? { providerMetadata: options } : {}) });
        break;
      }
      case 'tool-approval-request':
        // Not model input: the SDK itself leaves approvals out of the prompt.
        break;
      case 'file':
        throw unsupported(partPath, 'files in assistant messages cannot be imported (canonical assistant messages carry no media)');
      case 'tool-result':
        throw unsupported(partPath, 'provider-executed tool results cannot be imported');
      default:
        throw unexpected(`${partPath}.type`, '"text", "reasoning", "tool-call" or "tool-approval-request"', part.type);
    }
  });
  return withMetadata({ role: 'assistant', content: text, ...(reasoning.length > 0 ? { reasoning } : {}), ...(toolCalls.length > 0 ? { toolCalls } : {}) });
}

/** One part of a `content` tool output as text or media. */
function readOutputContent(values: readonly unknown[], path: string): { text: string; media: MediaPart[] } {
  let text = '';
  const media: MediaPart[] = [];
  values.forEach((raw, index) => {
    const partPath = `${path}[${index}]`;
    const part = readRecord(raw, partPath, 'a content part object');
    switch (part.type) {
      case 'text':
        text += readString(part.text, `${partPath}.text`);
        break;
      case 'media':
      case 'image-data':
      case 'file-data': {
        const mediaType = readNonEmptyString(part.mediaType, `${partPath}.mediaType`);
        const type = part.type === 'image-data' || (part.type === 'media' && mediaType.startsWith('image/')) ? 'image' : 'file';
        const filename = part.type === 'file-data' ? readOptionalString(part.filename, `${partPath}.filename`) : undefined;
        media.push(checkedMedia({ type, mediaType, data: readString(part.data, `${partPath}.data`), ...(filename === undefined ? {} : { filename }) }, partPath));
        break;
      }
      case 'image-url':
        media.push(checkedMedia({ type: 'image', mediaType: 'image/*', url: readString(part.url, `${partPath}.url`) }, partPath));
        break;
      case 'file-url': {
        const mediaType = readOptionalString(part.mediaType, `${partPath}.mediaType`) ?? 'application/octet-stream';
        media.push(checkedMedia({ type: 'file', mediaType, url: readString(part.url, `${partPath}.url`) }, partPath));
        break;
      }
      case 'file-id':
      case 'image-file-id':
      case 'custom':
        throw unsupported(`${partPath}.type`, `a "${part.type}" part refers to provider storage Strata cannot carry`);
      default:
        throw unexpected(`${partPath}.type`, '"text", "image-data", "image-url", "file-data", "file-url" or "media"', part.type);
    }
  });
  return { text, media };
}

function readToolResult(part: Fields, path: string): CanonicalMessage {
  const toolCallId = readNonEmptyString(part.toolCallId, `${path}.toolCallId`);
  const toolName = readString(part.toolName, `${path}.toolName`);
  const output = readRecord(part.output, `${path}.output`, 'a tool output object');
  const result = (content: string, options: { isError?: boolean; media?: MediaPart[] } = {}): CanonicalMessage => ({
    role: 'tool',
    toolCallId,
    toolName,
    content,
    ...(options.isError ? { isError: true } : {}),
    ...(options.media?.length ? { media: options.media } : {}),
  });
  switch (output.type) {
    case 'text':
      return result(readString(output.value, `${path}.output.value`));
    case 'error-text':
      return result(readString(output.value, `${path}.output.value`), { isError: true });
    case 'json':
    case 'error-json':
      if (output.value === undefined) throw unexpected(`${path}.output.value`, 'JSON', undefined);
      return result(JSON.stringify(readJson(output.value, `${path}.output.value`)), { isError: output.type === 'error-json' });
    case 'execution-denied':
      return result(readOptionalString(output.reason, `${path}.output.reason`) ?? 'Tool execution denied.', { isError: true });
    case 'content': {
      const { text, media } = readOutputContent(readArray(output.value, `${path}.output.value`, 'an array of content parts'), `${path}.output.value`);
      return result(text, { media });
    }
    default:
      throw unexpected(`${path}.output.type`, '"text", "json", "error-text", "error-json", "execution-denied" or "content"', output.type);
  }
}

/**
 * AI SDK 6 `ModelMessage` values (any JSON value, or real messages with
 * bytes and `URL`s) to canonical history, or one `ContextInputError` naming
 * the field. JSON tool outputs become their JSON text; images and files
 * become media; provider options of assistant messages, reasoning and tool
 * calls are kept as provider metadata (other provider options, such as cache
 * control on a text part, are request settings, not history, and are left
 * out). Approval requests and responses are skipped: the SDK does not send
 * them to the model either.
 */
export function fromAiSdkMessages(messages: unknown): CanonicalMessage[] {
  const history: CanonicalMessage[] = [];
  readArray(messages, 'messages', 'an array of messages').forEach((raw, index) => {
    const path = `messages[${index}]`;
    const message = readRecord(raw, path, 'a message object');
    switch (message.role) {
      case 'system':
        history.push({ role: 'system', content: readString(message.content, `${path}.content`) });
        break;
      case 'user': {
        const { text, media } = readUserContent(message.content, `${path}.content`);
        history.push(media.length > 0 ? { role: 'user', content: text, media } : { role: 'user', content: text });
        break;
      }
      case 'assistant':
        history.push(readAssistant(message, path));
        break;
      case 'tool':
        readArray(message.content, `${path}.content`, 'an array of tool-result parts').forEach((rawPart, partIndex) => {
          const partPath = `${path}.content[${partIndex}]`;
          const part = readRecord(rawPart, partPath, 'a tool-result part object');
          if (part.type === 'tool-result') history.push(readToolResult(part, partPath));
          else if (part.type !== 'tool-approval-response') throw unexpected(`${partPath}.type`, '"tool-result" or "tool-approval-response"', part.type);
        });
        break;
      default:
        throw unexpected(`${path}.role`, '"system", "user", "assistant" or "tool"', message.role);
    }
    if (message.role !== 'tool') history.push(recognizeCheckpoint(message, history.pop()!));
  });
  return history;
}

