import { ContextInputError } from '../errors/context-input-error.js';
import type { AssistantMessage, CanonicalHistory, CanonicalMessage, JsonValue, ToolCall } from '../messages.js';

/** An OpenAI chat-completions message, as APIs and trajectory files carry it. */
export interface OpenAIChatMessage {
  role: 'system' | 'developer' | 'user' | 'assistant' | 'tool';
  content: string | null | Array<{ type: string; text?: string }>;
  tool_calls?: Array<{ id: string; type?: 'function'; function: { name: string; arguments: string } }>;
  tool_call_id?: string;
  name?: string;
}

function textOf(content: unknown, where: string): string {
  if (content == null) return '';
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((part: { type?: string; text?: unknown }) => (typeof part?.text === 'string' ? part.text : ''))
      .join('');
  }
  throw new ContextInputError({ code: 'CONTEXT_MESSAGE_INVALID', culprit: where, message: `${where}: content must be a string, null or an array of text parts` });
}

/** Arguments arrive as JSON text; text that is not JSON is kept as a string. */
export function parseToolArguments(text: string): JsonValue {
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return text;
  }
}

/**
 * OpenAI chat messages to canonical history. Tool results get their tool
 * name from `name` or from the call they answer. `tool_call_ids` (SWE-agent)
 * is accepted for `tool_call_id`.
 */
export function fromOpenAIChat(messages: readonly unknown[]): CanonicalMessage[] {
  const toolNames = new Map<string, string>();
  return messages.map((raw, index) => {
    const where = `message ${index}`;
    if (typeof raw !== 'object' || raw === null) {
      throw new ContextInputError({ code: 'CONTEXT_MESSAGE_INVALID', culprit: where, message: `${where} is not an object` });
    }
    const message = raw as Record<string, unknown>;
    switch (message.role) {
      case 'system':
      case 'developer':
        return { role: 'system', content: textOf(message.content, where) };
      case 'user':
        return { role: 'user', content: textOf(message.content, where) };
      case 'assistant': {
        const calls = Array.isArray(message.tool_calls) ? message.tool_calls : [];
        const toolCalls: ToolCall[] = calls.map((call: Record<string, any>, callIndex: number) => {
          const name = call?.function?.name;
          if (typeof call?.id !== 'string' || typeof name !== 'string') {
            throw new ContextInputError({ code: 'CONTEXT_MESSAGE_INVALID', culprit: `${where}.tool_calls[${callIndex}]`, message: `${where}.tool_calls[${callIndex}] needs a string id and function.name` });
          }
          toolNames.set(call.id, name);
          const args = call.function.arguments;
          return { id: call.id, name, input: typeof args === 'string' ? parseToolArguments(args) : (args ?? {}) };
        });
        const assistant: AssistantMessage = { role: 'assistant', content: textOf(message.content, where) };
        return toolCalls.length > 0 ? { ...assistant, toolCalls } : assistant;
      }
      case 'tool': {
        const ids = message.tool_call_ids;
        const toolCallId = typeof message.tool_call_id === 'string' ? message.tool_call_id : Array.isArray(ids) && typeof ids[0] === 'string' ? ids[0] : undefined;
        if (toolCallId === undefined) {
          throw new ContextInputError({ code: 'CONTEXT_MESSAGE_INVALID', culprit: `${where}.tool_call_id`, message: `${where}: a tool message needs tool_call_id` });
        }
        const toolName = typeof message.name === 'string' ? message.name : toolNames.get(toolCallId) ?? 'unknown';
        return { role: 'tool', toolCallId, toolName, content: textOf(message.content, where) };
      }
      default:
        throw new ContextInputError({ code: 'CONTEXT_MESSAGE_INVALID', culprit: `${where}.role`, message: `${where} has unknown role ${JSON.stringify(message.role)}` });
    }
  });
}

/** Canonical history to OpenAI chat messages (the shape the provider-rules oracle reads). */
export function toOpenAIChat(history: CanonicalHistory): OpenAIChatMessage[] {
  return history.map((message): OpenAIChatMessage => {
    switch (message.role) {
      case 'system':
        return { role: 'system', content: message.content };
      case 'user':
        return { role: 'user', content: message.content };
      case 'assistant': {
        const calls = message.toolCalls ?? [];
        if (calls.length === 0) return { role: 'assistant', content: message.content };
        return {
          role: 'assistant',
          content: message.content === '' ? null : message.content,
          tool_calls: calls.map((call) => ({
            id: call.id,
            type: 'function',
            function: { name: call.name, arguments: typeof call.input === 'string' ? call.input : JSON.stringify(call.input) },
          })),
        };
      }
      case 'tool':
        return { role: 'tool', tool_call_id: message.toolCallId, content: message.content };
    }
  });
}
