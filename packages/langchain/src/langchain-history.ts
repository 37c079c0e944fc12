import { AIMessage, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import { ContextInputError, checkCanonicalHistory, type AssistantMessage, type CanonicalMessage, type ImportedMessage, type JsonValue, type MediaPart, type ReasoningPart } from '@strata/context';

const MESSAGE_INVALID = 'CONTEXT_MESSAGE_INVALID';

function invalid(path: string, message: string): ContextInputError {
  return new ContextInputError({ code: MESSAGE_INVALID, culprit: path, message: `${path}: ${message}` });
}

type Block = Record<string, unknown>;

/** A `data:` URL as inline base64, or undefined. */
function dataUrl(url: string): { mediaType: string; data: string } | undefined {
  const match = /^data:([^;,]+)(?:;[^;,]*)*;base64,(.*)$/s.exec(url);
  return match ? { mediaType: match[1]!, data: match[2]! } : undefined;
}

/**
 * One content block that carries media, in any of the forms LangChain
 * messages hold: standard blocks (`{ type: "image", url | data, mimeType }`,
 * files alike), the older `source_type` form, and OpenAI's `image_url`.
 */
function mediaOf(block: Block, path: string): MediaPart | undefined {
  if (block.type === 'image_url') {
    const field = block.image_url;
    const url = typeof field === 'string' ? field : typeof (field as Block | undefined)?.url === 'string' ? ((field as Block).url as string) : undefined;
    if (url === undefined) throw invalid(path, 'an image_url block needs a url');
    const inline = dataUrl(url);
    return inline ? { type: 'image', mediaType: inline.mediaType, data: inline.data } : { type: 'image', mediaType: 'image/*', url };
  }
  if (block.type !== 'image' && block.type !== 'file') return undefined;
  const type = block.type;
  const mediaType = (block.mimeType ?? block.mime_type) as string | undefined;
  const filename = (block.filename ?? (block.metadata as Block | undefined)?.filename) as string | undefined;
  const named = typeof filename === 'string' ? { filename } : {};
  const fallback = type === 'image' ? 'image/*' : 'application/octet-stream';
  if (typeof block.data === 'string') return { type, mediaType: mediaType ?? fallback, data: block.data, ...named };
  if (typeof block.url === 'string') {
    const inline = dataUrl(block.url);
    return inline ? { type, mediaType: mediaType ?? inline.mediaType, data: inline.data, ...named } : { type, mediaType: mediaType ?? fallback, url: block.url, ...named };
  }
  throw invalid(path, `a ${type} block needs base64 data or a url (provider file ids cannot be carried)`);
}

/** Text and media of string or block content. Reasoning blocks are returned apart; tool-call blocks are left to `tool_calls`. */
function readContent(content: unknown, path: string): { text: string; media: MediaPart[]; reasoning: ReasoningPart[] } {
  if (typeof content === 'string') return { text: content, media: [], reasoning: [] };
  if (!Array.isArray(content)) throw invalid(path, 'expected a string or an array of content blocks');
  let text = '';
  const media: MediaPart[] = [];
  const reasoning: ReasoningPart[] = [];
  content.forEach((raw: unknown, index) => {
    const blockPath = `${path}[${index}]`;
    if (typeof raw === 'string') {
      text += raw;
      return;
    }
    if (typeof raw !== 'object' || raw === null) throw invalid(blockPath, 'expected a content block object');
    const block = raw as Block;
    if (block.type === 'text' && typeof block.text === 'string') text += block.text;
    else if (block.type === 'reasoning' && typeof block.reasoning === 'string') reasoning.push({ text: block.reasoning });
    else if (block.type === 'thinking' && typeof block.thinking === 'string') reasoning.push({ text: block.thinking, ...(typeof block.signature === 'string' ? { providerMetadata: { anthropic: { signature: block.signature } } } : {}) });
    else if (block.type === 'tool_use' || block.type === 'tool_call' || block.type === 'tool_call_chunk' || block.type === 'redacted_thinking') {
      // Calls are read from `tool_calls`; redacted reasoning has no text to carry.
    } else {
      const part = mediaOf(block, blockPath);
      if (!part) throw invalid(`${blockPath}.type`, `unsupported content block type ${JSON.stringify(block.type)}`);
      media.push(part);
    }
  });
  return { text, media, reasoning };
}

/** One LangChain message as a canonical message. */
function readMessage(message: BaseMessage, path: string): CanonicalMessage {
  if (SystemMessage.isInstance(message)) return { role: 'system', content: readContent(message.content, `${path}.content`).text };
  if (HumanMessage.isInstance(message)) {
    const { text, media } = readContent(message.content, `${path}.content`);
    return media.length > 0 ? { role: 'user', content: text, media } : { role: 'user', content: text };
  }
  if (AIMessage.isInstance(message)) {
    const { text, reasoning } = readContent(message.content, `${path}.content`);
    const toolCalls = (message.tool_calls ?? []).map((call, index) => {
      if (!call.id) throw invalid(`${path}.tool_calls[${index}].id`, 'a tool call needs an id');
      return { id: call.id, name: call.name, input: call.args as JsonValue };
    });
    const assistant: AssistantMessage = { role: 'assistant', content: text, ...(reasoning.length > 0 ? { reasoning } : {}), ...(toolCalls.length > 0 ? { toolCalls } : {}) };
    return assistant;
  }
  if (ToolMessage.isInstance(message)) {
    const { text, media } = readContent(message.content, `${path}.content`);
    return {
      role: 'tool',
      toolCallId: message.tool_call_id,
      toolName: message.name ?? '',
      content: text,
      ...(message.status === 'error' ? { isError: true } : {}),
      ...(media.length > 0 ? { media } : {}),
    };
  }
  throw invalid(path, `unsupported message type ${JSON.stringify(message.type)}`);
}

/**
 * LangChain messages as canonical history, each with the message it came
 * from. Any malformed message is one `ContextInputError` naming it.
 */
export function importLangChainMessages(messages: readonly BaseMessage[]): ImportedMessage<BaseMessage>[] {
  const imported = messages.map((message, index) => ({ message: readMessage(message, `messages[${index}]`), origin: message }));
  checkCanonicalHistory(imported.map(({ message }) => message));
  return imported;
}

/** Canonical media as a standard LangChain content block. */
function mediaBlock(part: MediaPart): Block {
  const source = part.data !== undefined ? { data: part.data } : { url: part.url };
  return { type: part.type, mimeType: part.mediaType, ...source, ...(part.filename === undefined ? {} : { metadata: { filename: part.filename } }) };
}

function contentOf(text: string, media: readonly MediaPart[] | undefined): string | Block[] {
  if (!media?.length) return text;
  return [...(text === '' ? [] : [{ type: 'text', text }]), ...media.map(mediaBlock)];
}

/** A canonical message as a LangChain message (for what Strata wrote or changed). */
export function toLangChainMessage(message: CanonicalMessage): BaseMessage {
  switch (message.role) {
    case 'system':
      return new SystemMessage(message.content);
    case 'user':
      return new HumanMessage({ content: contentOf(message.content, message.media) as HumanMessage['content'] });
    case 'assistant':
      return new AIMessage({
        content: message.reasoning?.length ? [...message.reasoning.map((part) => ({ type: 'reasoning', reasoning: part.text })), ...(message.content === '' ? [] : [{ type: 'text', text: message.content }])] : message.content,
        tool_calls: (message.toolCalls ?? []).map((call) => ({ id: call.id, name: call.name, args: call.input as Record<string, unknown>, type: 'tool_call' as const })),
      });
    case 'tool':
      return new ToolMessage({
        content: contentOf(message.content, message.media) as ToolMessage['content'],
        tool_call_id: message.toolCallId,
        name: message.toolName,
        status: message.isError ? 'error' : 'success',
      });
  }
}
