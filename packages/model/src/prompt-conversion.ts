import type {
  JSONObject,
  LanguageModelV3FunctionTool,
  LanguageModelV3Message,
  LanguageModelV3Prompt,
  LanguageModelV3ToolResultPart,
  SharedV3ProviderMetadata,
} from '@ai-sdk/provider';
import type { AssistantMessage, CanonicalHistory, JsonValue, ToolSchema } from '@strata/context';
import { checkJsonValue } from '@strata/context';

/**
 * The key under which an assistant message's `providerMetadata` keeps the
 * metadata of its text and tool-call parts (for example a tool call's
 * thought signature), so that it goes back on the same parts verbatim. Every
 * other key is the provider's own message metadata.
 */
export const PART_METADATA_KEY = 'strata.parts';

/** Per-part provider metadata of one assistant message, under `PART_METADATA_KEY`. */
export interface AssistantPartMetadata {
  readonly text?: SharedV3ProviderMetadata;
  readonly toolCalls?: { readonly [toolCallId: string]: SharedV3ProviderMetadata };
}

/**
 * Canonical history to the provider-neutral prompt of `LanguageModelV3`.
 * `system`, when given, becomes the leading system message. Consecutive tool
 * results become one `tool` message with one tool-result part each, in
 * order; an error result is `error-text`. Assistant reasoning parts carry
 * their provider metadata back as `providerOptions` (signatures, encrypted
 * content), and so do text and tool-call parts.
 *
 * Two repairs keep every provider accepting the history: an assistant
 * message with nothing in it (no text, reasoning or calls) is left out, and
 * a tool call whose input is not a JSON object (the model sent text that
 * is not JSON) goes back with `{}`, as OpenAI's own converter does;
 * Anthropic rejects anything but an object. The tool result tells the model
 * what was wrong.
 */
export function toLanguageModelPrompt(options: { messages: CanonicalHistory; system?: string }): LanguageModelV3Prompt {
  const prompt: LanguageModelV3Message[] = [];
  if (options.system !== undefined && options.system.length > 0) prompt.push({ role: 'system', content: options.system });
  for (const message of options.messages) {
    switch (message.role) {
      case 'system':
        prompt.push({ role: 'system', content: message.content });
        break;
      case 'user':
        prompt.push({ role: 'user', content: [{ type: 'text', text: message.content }] });
        break;
      case 'assistant': {
        const converted = assistantToPrompt(message);
        if (converted.content.length > 0) prompt.push(converted);
        break;
      }
      case 'tool': {
        const part: LanguageModelV3ToolResultPart = {
          type: 'tool-result',
          toolCallId: message.toolCallId,
          toolName: message.toolName,
          output: message.isError === true ? { type: 'error-text', value: message.content } : { type: 'text', value: message.content },
        };
        const previous = prompt.at(-1);
        if (previous?.role === 'tool') previous.content.push(part);
        else prompt.push({ role: 'tool', content: [part] });
        break;
      }
    }
  }
  return prompt;
}

function assistantToPrompt(message: AssistantMessage): Extract<LanguageModelV3Message, { role: 'assistant' }> {
  const { [PART_METADATA_KEY]: partMetadata, ...messageMetadata } = message.providerMetadata ?? {};
  const parts = (partMetadata ?? {}) as AssistantPartMetadata;
  const content: Extract<LanguageModelV3Message, { role: 'assistant' }>['content'] = [];
  for (const reasoning of message.reasoning ?? []) {
    content.push({ type: 'reasoning', text: reasoning.text, ...withProviderOptions(reasoning.providerMetadata as SharedV3ProviderMetadata | undefined) });
  }
  if (message.content.length > 0) content.push({ type: 'text', text: message.content, ...withProviderOptions(parts.text) });
  for (const call of message.toolCalls ?? []) {
    content.push({ type: 'tool-call', toolCallId: call.id, toolName: call.name, input: toolInputForPrompt(call.input), ...withProviderOptions(parts.toolCalls?.[call.id]) });
  }
  return { role: 'assistant', content, ...withProviderOptions(messageMetadata as SharedV3ProviderMetadata) };
}

function toolInputForPrompt(input: JsonValue): JsonValue {
  return typeof input === 'object' && input !== null && !Array.isArray(input) ? input : {};
}

function withProviderOptions(metadata: SharedV3ProviderMetadata | undefined): { providerOptions?: SharedV3ProviderMetadata } {
  return metadata === undefined || Object.keys(metadata).length === 0 ? {} : { providerOptions: metadata };
}

/** Tool schemas as `LanguageModelV3` function tools, in the caller's order. */
export function toLanguageModelTools(tools: readonly ToolSchema[]): LanguageModelV3FunctionTool[] {
  return tools.map((tool) => ({
    type: 'function',
    name: tool.name,
    description: tool.description,
    inputSchema: tool.parameters as LanguageModelV3FunctionTool['inputSchema'],
  }));
}

/**
 * A tool call's JSON-encoded input as canonical input: parsed JSON; an empty
 * string is `{}` (no arguments); text that is not JSON, or JSON past what a
 * canonical history holds (`MAX_JSON_DEPTH` levels, `MAX_JSON_NODES`
 * nodes), stays a string, for the tool layer to reject with a structured
 * error the model can correct (never a history the next turn refuses).
 */
export function parseToolInput(input: string): JsonValue {
  if (input.trim().length === 0) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(input);
  } catch {
    return input;
  }
  try {
    return checkJsonValue(parsed, 'tool call input');
  } catch {
    return input;
  }
}

/** Merges provider metadata per provider key, later entries winning field by field. */
export function mergeProviderMetadata(
  base: SharedV3ProviderMetadata | undefined,
  addition: SharedV3ProviderMetadata | undefined,
): SharedV3ProviderMetadata | undefined {
  if (addition === undefined) return base;
  if (base === undefined) return addition;
  const merged: Record<string, JSONObject> = { ...base };
  for (const [provider, values] of Object.entries(addition)) merged[provider] = { ...(merged[provider] ?? {}), ...values };
  return merged;
}
