import type { AssistantMessage, CanonicalHistory, CanonicalMessage, JsonValue } from './messages.js';
import { isJsonObject } from './tool-call-pairing.js';

/**
 * The rule for assistant messages whose reasoning a provider signed, in one
 * place. Anthropic checks the thinking blocks of the latest assistant turn
 * against their signatures and wants them back unmodified while tools are in
 * use (earlier ones may be left out); OpenAI Responses wants each reasoning
 * item back with the function calls it preceded. So a signed message goes
 * out as the provider produced it or not at all: the composer, the pairing,
 * the compactor and the window never edit one, and the latest one that can
 * go verbatim is never summarized or windowed away (older ones are kept whole
 * or dropped whole). The validator fails a turn that sends an edited copy.
 *
 * Which provider metadata signs a reasoning part (or a tool call), by
 * provider key: Anthropic's (and Bedrock's) thinking signature and redacted
 * data, OpenAI Responses' reasoning item id and encrypted content, Gemini's
 * thought signature. Frozen: a new provider is a visible decision.
 */
export const SIGNING_METADATA_FIELDS: Readonly<Record<string, readonly string[]>> = Object.freeze({
  anthropic: Object.freeze(['signature', 'redactedData']),
  bedrock: Object.freeze(['signature', 'redactedData']),
  openai: Object.freeze(['itemId', 'reasoningEncryptedContent']),
  azure: Object.freeze(['itemId', 'reasoningEncryptedContent']),
  google: Object.freeze(['thoughtSignature']),
  vertex: Object.freeze(['thoughtSignature']),
});

/** Whether provider metadata holds a signing field with a non-empty string. */
function signs(metadata: { readonly [provider: string]: JsonValue } | undefined): boolean {
  if (metadata === undefined) return false;
  for (const provider in metadata) {
    const fields = SIGNING_METADATA_FIELDS[provider];
    const entry = metadata[provider];
    if (fields === undefined || !isJsonObject(entry)) continue;
    for (const field of fields) {
      const value = entry[field];
      if (typeof value === 'string' && value !== '') return true;
    }
  }
  return false;
}

/** An assistant message with reasoning (or a tool call) its provider signed: it goes out verbatim or not at all. */
export function isSignedAssistant(message: CanonicalMessage): message is AssistantMessage {
  if (message.role !== 'assistant') return false;
  for (const part of message.reasoning ?? []) if (signs(part.providerMetadata)) return true;
  for (const call of message.toolCalls ?? []) if (signs(call.providerMetadata)) return true;
  return false;
}

/**
 * Why a signed message cannot go out verbatim on its own (no text and no
 * calls, a call id empty or repeated within it, arguments that are not a
 * JSON object), or undefined. A provider would reject it as it is, and
 * editing it would break its signature: it is left out whole. An id already
 * used earlier in the same request is the composer's to judge.
 */
export function verbatimProblem(message: AssistantMessage): string | undefined {
  const calls = message.toolCalls ?? [];
  if (calls.length === 0 && message.content.trim() === '') return 'it has neither text nor tool calls';
  const ids = new Set<string>();
  for (const call of calls) {
    if (call.id === '') return 'a tool call has an empty id';
    if (ids.has(call.id)) return `the tool call id "${call.id}" is repeated`;
    ids.add(call.id);
    if (!isJsonObject(call.input)) return `tool call "${call.id}" has arguments that are not a JSON object`;
  }
  return undefined;
}

/** A signed message that can go out verbatim on its own: one the latest of which is always kept. */
export function isVerbatimSigned(message: CanonicalMessage): message is AssistantMessage {
  return isSignedAssistant(message) && verbatimProblem(message) === undefined;
}

/** Index of the latest signed message in `messages` that can go out verbatim, or -1. */
export function latestSignedIndex(messages: CanonicalHistory): number {
  for (let index = messages.length - 1; index >= 0; index -= 1) if (isVerbatimSigned(messages[index]!)) return index;
  return -1;
}
