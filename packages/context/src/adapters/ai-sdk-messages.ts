import type { AssistantMessage, CanonicalHistory, CanonicalMessage, JsonValue, ReasoningPart, ToolCall } from '../messages.js';

/**
 * The AI SDK 6 `ModelMessage` shapes Strata reads and writes, declared here
 * structurally so `@strata/context` depends on no SDK.
 */
export type AiSdkModelMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string | Array<{ type: 'text'; text: string }> }
  | {
      role: 'assistant';
      content:
        | string
        | Array<
            | { type: 'text'; text: string }
            | { type: 'reasoning'; text: string; providerOptions?: { [provider: string]: { [key: string]: JsonValue } } }
            | { type: 'tool-call'; toolCallId: string; toolName: string; input: unknown }
          >;
      providerOptions?: { [provider: string]: { [key: string]: JsonValue } };
    }
  | {
      role: 'tool';
      content: Array<{
        type: 'tool-result';
        toolCallId: string;
        toolName: string;
        output: { type: 'text' | 'error-text'; value: string } | { type: 'json' | 'error-json'; value: JsonValue };
      }>;
    };

type Options = { [provider: string]: { [key: string]: JsonValue } };

/** Canonical history to AI SDK messages; consecutive tool results become one tool message. */
export function toAiSdkMessages(history: CanonicalHistory): AiSdkModelMessage[] {
  const messages: AiSdkModelMessage[] = [];
  for (const message of history) {
    switch (message.role) {
      case 'system':
      case 'user':
        messages.push({ role: message.role, content: message.content });
        break;
      case 'assistant': {
        const parts: Extract<AiSdkModelMessage, { role: 'assistant' }>['content'] = [];
        for (const part of message.reasoning ?? []) parts.push({ type: 'reasoning', text: part.text, ...(part.providerMetadata ? { providerOptions: part.providerMetadata as Options } : {}) });
        if (message.content !== '') parts.push({ type: 'text', text: message.content });
        for (const call of message.toolCalls ?? []) parts.push({ type: 'tool-call', toolCallId: call.id, toolName: call.name, input: call.input });
        messages.push({ role: 'assistant', content: parts, ...(message.providerMetadata ? { providerOptions: message.providerMetadata as Options } : {}) });
        break;
      }
      case 'tool': {
        const part = { type: 'tool-result' as const, toolCallId: message.toolCallId, toolName: message.toolName, output: { type: message.isError ? ('error-text' as const) : ('text' as const), value: message.content } };
        const last = messages.at(-1);
        if (last?.role === 'tool') last.content.push(part);
        else messages.push({ role: 'tool', content: [part] });
        break;
      }
    }
  }
  return messages;
}

/** AI SDK messages to canonical history; JSON tool outputs become their JSON text. */
export function fromAiSdkMessages(messages: readonly AiSdkModelMessage[]): CanonicalMessage[] {
  const history: CanonicalMessage[] = [];
  for (const message of messages) {
    if (message.role === 'system') history.push({ role: 'system', content: message.content });
    else if (message.role === 'user') history.push({ role: 'user', content: typeof message.content === 'string' ? message.content : message.content.map((part) => part.text).join('') });
    else if (message.role === 'assistant') {
      if (typeof message.content === 'string') {
        history.push({ role: 'assistant', content: message.content });
        continue;
      }
      let text = '';
      const reasoning: ReasoningPart[] = [];
      const toolCalls: ToolCall[] = [];
      for (const part of message.content) {
        if (part.type === 'text') text += part.text;
        else if (part.type === 'reasoning') reasoning.push({ text: part.text, ...(part.providerOptions ? { providerMetadata: part.providerOptions } : {}) });
        else toolCalls.push({ id: part.toolCallId, name: part.toolName, input: part.input as JsonValue });
      }
      const assistant: AssistantMessage = {
        role: 'assistant',
        content: text,
        ...(reasoning.length > 0 ? { reasoning } : {}),
        ...(toolCalls.length > 0 ? { toolCalls } : {}),
        ...(message.providerOptions ? { providerMetadata: message.providerOptions } : {}),
      };
      history.push(assistant);
    } else {
      for (const part of message.content) {
        const { output } = part;
        const content = output.type === 'text' || output.type === 'error-text' ? output.value : JSON.stringify(output.value);
        history.push({ role: 'tool', toolCallId: part.toolCallId, toolName: part.toolName, content, ...(output.type.startsWith('error') ? { isError: true } : {}) });
      }
    }
  }
  return history;
}
