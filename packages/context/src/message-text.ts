import { checkJsonValue } from './canonical-history-check.js';
import type { CanonicalMessage, JsonValue } from './messages.js';

/**
 * JSON text of a tool call's input. A value `JSON.stringify` cannot write
 * (nested too deep for the stack, cyclic, not JSON) is one `ContextInputError`
 * naming `path`, never a `RangeError`.
 */
function inputText(input: JsonValue, path: string): string {
  if (typeof input === 'string') return input;
  try {
    return JSON.stringify(input);
  } catch (error) {
    checkJsonValue(input, path);
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
    text += '\n' + call.name + ' ' + inputText(call.input, `message.toolCalls[${index}].input`);
  });
  return text;
}
