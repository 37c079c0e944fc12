import { checkJsonValue } from './canonical-history-check.js';
import type { CanonicalMessage } from './messages.js';

/**
 * `JSON.stringify(value)`, except that a value it cannot write (nested too
 * deep for the stack, cyclic, a BigInt) is one `ContextInputError` naming
 * `path`, never a `RangeError` or `TypeError`.
 */
export function jsonText(value: unknown, path: string): string {
  try {
    return JSON.stringify(value);
  } catch (error) {
    checkJsonValue(value, path);
    throw error;
  }
}

/**
 * The text of a message that a provider tokenizes: content, reasoning, and
 * each tool call's name and JSON arguments. Estimators count this; media
 * are counted apart (`estimateMediaTokens`).
 */
export function messageText(message: CanonicalMessage): string {
  if (message.role !== 'assistant') return message.content;
  let text = message.content;
  for (const part of message.reasoning ?? []) text += '\n' + part.text;
  (message.toolCalls ?? []).forEach((call, index) => {
    text += '\n' + call.name + ' ' + (typeof call.input === 'string' ? call.input : jsonText(call.input, `message.toolCalls[${index}].input`));
  });
  return text;
}
