import type { CanonicalMessage } from './messages.js';

/**
 * The text of a message that a provider tokenizes: content, reasoning, and
 * each tool call's name and JSON arguments. Estimators count this.
 */
export function messageText(message: CanonicalMessage): string {
  if (message.role !== 'assistant') return message.content;
  let text = message.content;
  for (const part of message.reasoning ?? []) text += '\n' + part.text;
  for (const call of message.toolCalls ?? []) {
    text += '\n' + call.name + ' ' + (typeof call.input === 'string' ? call.input : JSON.stringify(call.input));
  }
  return text;
}
