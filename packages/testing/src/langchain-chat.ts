import type { AIMessage, BaseMessage, ToolMessage } from '@langchain/core/messages';

function isLangChainMessage(value: unknown): value is BaseMessage {
  return value instanceof Object && typeof (value as BaseMessage).getType === 'function';
}

/**
 * LangChain messages in OpenAI chat shape, mapped field by field (not through
 * Strata's adapters), for the independent provider-rules oracle. A value that
 * is not a message stays as it is, for the oracle to judge.
 */
export function langChainAsOpenAIChat(messages: readonly unknown[]): unknown[] {
  return messages.map((value) => {
    if (!isLangChainMessage(value)) return value;
    const content = value.content;
    const text = typeof content === 'string' ? content : content.flatMap((block) => (block.type === 'text' ? [(block as { text: string }).text] : [])).join('');
    switch (value.getType()) {
      case 'system':
        return { role: 'system', content: text };
      case 'human':
        return { role: 'user', content: typeof content === 'string' ? text : [{ type: 'text', text }] };
      case 'ai': {
        const calls = (value as AIMessage).tool_calls ?? [];
        return { role: 'assistant', content: text, ...(calls.length > 0 ? { tool_calls: calls.map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: JSON.stringify(call.args) } })) } : {}) };
      }
      case 'tool':
        return { role: 'tool', tool_call_id: (value as ToolMessage).tool_call_id, content: text };
      default:
        return { role: value.getType(), content: text };
    }
  });
}
