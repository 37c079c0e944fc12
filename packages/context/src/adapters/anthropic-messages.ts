import { ContextInputError } from '../errors/context-input-error.js';
import type { AssistantMessage, CanonicalHistory, CanonicalMessage, JsonValue, ReasoningPart, ToolCall } from '../messages.js';

export type AnthropicContentBlock =
  | { type: 'text'; text: string }
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'tool_use'; id: string; name: string; input: JsonValue }
  | { type: 'tool_result'; tool_use_id: string; content: string; is_error?: boolean };

export interface AnthropicMessage {
  role: 'user' | 'assistant';
  content: AnthropicContentBlock[];
}

export interface AnthropicRequestMessages {
  /** System messages joined by blank lines; absent when there are none. */
  system?: string;
  messages: AnthropicMessage[];
}

function signatureOf(part: ReasoningPart): string | undefined {
  const anthropic = part.providerMetadata?.anthropic;
  const signature = anthropic && typeof anthropic === 'object' && !Array.isArray(anthropic) ? anthropic.signature : undefined;
  return typeof signature === 'string' ? signature : undefined;
}

/**
 * Canonical history to Anthropic Messages: system messages move to
 * `system`, tool results become `tool_result` blocks of a user turn, and
 * consecutive turns of one role are merged, as the API requires. Reasoning
 * goes back as `thinking` only where its signature was kept.
 */
export function toAnthropicMessages(history: CanonicalHistory): AnthropicRequestMessages {
  const system: string[] = [];
  const messages: AnthropicMessage[] = [];
  const push = (role: AnthropicMessage['role'], blocks: AnthropicContentBlock[]) => {
    if (blocks.length === 0) return;
    const last = messages.at(-1);
    if (last && last.role === role) last.content.push(...blocks);
    else messages.push({ role, content: blocks });
  };
  for (const message of history) {
    switch (message.role) {
      case 'system':
        system.push(message.content);
        break;
      case 'user':
        push('user', [{ type: 'text', text: message.content }]);
        break;
      case 'tool':
        push('user', [{ type: 'tool_result', tool_use_id: message.toolCallId, content: message.content, ...(message.isError ? { is_error: true } : {}) }]);
        break;
      case 'assistant': {
        const blocks: AnthropicContentBlock[] = [];
        for (const part of message.reasoning ?? []) {
          const signature = signatureOf(part);
          if (signature !== undefined) blocks.push({ type: 'thinking', thinking: part.text, signature });
        }
        if (message.content !== '') blocks.push({ type: 'text', text: message.content });
        for (const call of message.toolCalls ?? []) blocks.push({ type: 'tool_use', id: call.id, name: call.name, input: call.input });
        push('assistant', blocks);
        break;
      }
    }
  }
  return { ...(system.length > 0 ? { system: system.join('\n\n') } : {}), messages };
}

/** Anthropic Messages to canonical history; tool names come from the `tool_use` blocks they answer. */
export function fromAnthropicMessages(request: AnthropicRequestMessages): CanonicalMessage[] {
  const history: CanonicalMessage[] = request.system ? [{ role: 'system', content: request.system }] : [];
  const toolNames = new Map<string, string>();
  request.messages.forEach((message, index) => {
    const blocks = typeof message.content === 'string' ? [{ type: 'text' as const, text: message.content as string }] : message.content;
    if (!Array.isArray(blocks)) {
      throw new ContextInputError({ code: 'CONTEXT_MESSAGE_INVALID', culprit: `messages[${index}].content`, message: `messages[${index}].content must be a string or an array of blocks` });
    }
    if (message.role === 'assistant') {
      const reasoning: ReasoningPart[] = [];
      const toolCalls: ToolCall[] = [];
      let text = '';
      for (const block of blocks) {
        if (block.type === 'text') text += block.text;
        else if (block.type === 'thinking') reasoning.push({ text: block.thinking, providerMetadata: { anthropic: { signature: block.signature } } });
        else if (block.type === 'tool_use') {
          toolNames.set(block.id, block.name);
          toolCalls.push({ id: block.id, name: block.name, input: block.input });
        }
      }
      const assistant: AssistantMessage = { role: 'assistant', content: text, ...(reasoning.length > 0 ? { reasoning } : {}), ...(toolCalls.length > 0 ? { toolCalls } : {}) };
      history.push(assistant);
      return;
    }
    let text = '';
    const flush = () => {
      if (text !== '') history.push({ role: 'user', content: text });
      text = '';
    };
    for (const block of blocks) {
      if (block.type === 'text') text += block.text;
      else if (block.type === 'tool_result') {
        flush();
        history.push({ role: 'tool', toolCallId: block.tool_use_id, toolName: toolNames.get(block.tool_use_id) ?? 'unknown', content: block.content, ...(block.is_error ? { isError: true } : {}) });
      }
    }
    flush();
  });
  return history;
}
