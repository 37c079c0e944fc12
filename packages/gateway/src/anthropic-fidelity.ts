// What the Anthropic front end keeps of the client's own request: its blocks' fields Strata does not model, and prompt-cache markers.
import { createHash } from 'node:crypto';

type Block = Record<string, unknown>;
type Message = { role?: unknown; content?: unknown; [field: string]: unknown };

/** Cache breakpoints Anthropic accepts in one request. */
export const MAX_CACHE_MARKERS = 4;

/** What identifies a block across the canonical round trip, with what must be equal for the client's own block to stand in for it. */
function blockKey(block: Block): string | undefined {
  switch (block.type) {
    case 'text':
      return `text:${String(block.text)}`;
    case 'tool_use':
      return `tool_use:${String(block.id)}:${JSON.stringify(block.input ?? {})}`;
    case 'tool_result':
      return `tool_result:${String(block.tool_use_id)}:${resultText(block.content)}:${block.is_error === true}`;
    case 'thinking':
      return `thinking:${String(block.signature)}:${String(block.thinking)}`;
    case 'redacted_thinking':
      return `redacted_thinking:${String(block.data)}`;
    default:
      return undefined;
  }
}

function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  return Array.isArray(content) ? content.map((part) => (typeof (part as Block)?.text === 'string' ? (part as Block).text : JSON.stringify(part))).join('') : '';
}

/**
 * The converted messages with each block the client sent, unchanged by
 * Strata, given back as the client's own object: fields the canonical
 * history does not model (`cache_control`, `citations`, ...) reach
 * upstream untouched. A block Strata changed (a masked result, a
 * checkpoint) stays as converted. A client's string content has no
 * fields to keep. The system field is the client's own when Strata sent
 * its text unchanged.
 */
export function withClientBlocks(body: Record<string, unknown>, converted: { system?: unknown; messages: readonly Message[] }): { system?: unknown; messages: Message[] } {
  const originals = new Map<string, Block>();
  for (const message of (Array.isArray(body.messages) ? body.messages : []) as Message[]) {
    if (!Array.isArray(message?.content)) continue;
    for (const block of message.content as Block[]) {
      const key = typeof block === 'object' && block !== null ? blockKey(block) : undefined;
      if (key !== undefined) originals.set(key, block);
    }
  }
  const messages = converted.messages.map((message) => {
    if (!Array.isArray(message.content)) return message;
    return { ...message, content: (message.content as Block[]).map((block) => originals.get(blockKey(block) ?? '') ?? block) };
  });
  return { system: systemText(body.system) === systemText(converted.system) ? body.system : converted.system, messages };
}

function systemText(system: unknown): string {
  if (system === undefined || system === null) return '';
  if (typeof system === 'string') return system;
  return Array.isArray(system) ? system.map((block) => String((block as Block)?.text ?? '')).join('\n') : JSON.stringify(system);
}

/** A hash of each message of a request, chained: equal at index i when the first i + 1 messages are. Markers are left out. */
export function messageChain(messages: readonly Message[]): string[] {
  const chain: string[] = [];
  for (const message of messages) {
    // A string content and its one text block are the same message (a marker turns the one into the other).
    const content = typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
    chain.push(createHash('sha256').update(chain.at(-1) ?? '').update(JSON.stringify({ ...message, content }, (key, value) => (key === 'cache_control' ? undefined : value))).digest('hex'));
  }
  return chain;
}

/**
 * The request with a cache marker (`cache_control: {type: "ephemeral"}`)
 * where its stable prefix ends: on the last message equal to the same
 * index of the previous request (`previous`, its `messageChain`); without
 * one known, on the message before the newest assistant message (what a
 * tool loop's previous request ended with). The marker goes on that
 * message's last block that is neither empty nor thinking; none is added
 * when the client's own markers already number `MAX_CACHE_MARKERS`, when
 * that block has one, or when no message is stable.
 */
export function withCacheMarker(request: { system?: unknown; messages: Message[]; tools?: unknown }, previous: readonly string[] | undefined): { system?: unknown; messages: Message[]; tools?: unknown } {
  const markers = JSON.stringify([request.system, request.messages, request.tools]).split('"cache_control":').length - 1;
  if (markers >= MAX_CACHE_MARKERS) return request;
  const chain = messageChain(request.messages);
  let stable = -1;
  if (previous !== undefined) {
    for (let index = Math.min(chain.length, previous.length) - 1; index >= 0 && stable < 0; index -= 1) if (chain[index] === previous[index]) stable = index;
  } else {
    const newestAssistant = request.messages.findLastIndex((message) => message.role === 'assistant');
    stable = newestAssistant - 1;
  }
  if (stable < 0) return request;
  const message = request.messages[stable]!;
  const blocks: Block[] = typeof message.content === 'string' ? (message.content === '' ? [] : [{ type: 'text', text: message.content }]) : Array.isArray(message.content) ? [...(message.content as Block[])] : [];
  const target = blocks.findLastIndex((block) => !isEmptyOrThinking(block));
  if (target < 0 || blocks[target]!.cache_control !== undefined) return request;
  blocks[target] = { ...blocks[target], cache_control: { type: 'ephemeral' } };
  const messages = [...request.messages];
  messages[stable] = { ...message, content: blocks };
  return { ...request, messages };
}

function isEmptyOrThinking(block: Block): boolean {
  if (block.type === 'thinking' || block.type === 'redacted_thinking') return true;
  if (block.type === 'text') return typeof block.text !== 'string' || block.text === '';
  if (block.type === 'tool_result') return resultText(block.content) === '' && !Array.isArray(block.content);
  return false;
}
