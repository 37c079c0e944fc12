import type { ContextDiagnostic } from './contributor.js';
import type { AssistantMessage, CanonicalHistory, CanonicalMessage, JsonValue, ToolCall, ToolResultMessage } from './messages.js';

/** The key under which arguments that are not a JSON object are sent, as the exact text the model wrote. */
export const INVALID_ARGUMENTS_KEY = 'invalid_arguments';

function isJsonObject(value: JsonValue): value is { [key: string]: JsonValue } {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Arguments as every provider accepts them: an object; anything else wrapped, its text kept exact. */
function outgoingArguments(input: JsonValue): { [key: string]: JsonValue } {
  if (isJsonObject(input)) return input;
  // A string input is the model's own text that was not JSON (see ToolCall.input).
  return { [INVALID_ARGUMENTS_KEY]: typeof input === 'string' ? input : JSON.stringify(input) };
}

/**
 * The history as a request must carry its tool calls: every call id
 * non-empty and unique within the request, every call's arguments a JSON
 * object. A duplicate or empty id is replaced by a deterministic one
 * (`strata_<message>_<call>`), and the results right after the message are
 * re-pointed by position: the first result naming an id answers the first
 * call that had it. Messages that need no change are returned as they are
 * (same objects), so previews and caches keyed by message keep working.
 */
export function pairToolCalls(history: CanonicalHistory): { history: CanonicalMessage[]; diagnostics: ContextDiagnostic[] } {
  const diagnostics: ContextDiagnostic[] = [];
  const taken = new Set<string>();
  for (const message of history) if (message.role === 'assistant') for (const call of message.toolCalls ?? []) taken.add(call.id);
  const used = new Set<string>();
  const freshId = (messageIndex: number, callIndex: number): string => {
    let id = `strata_${messageIndex}_${callIndex}`;
    for (let suffix = 2; taken.has(id) || used.has(id); suffix += 1) id = `strata_${messageIndex}_${callIndex}_${suffix}`;
    return id;
  };
  const out: CanonicalMessage[] = [];
  let index = 0;
  while (index < history.length) {
    const message = history[index]!;
    index += 1;
    if (message.role !== 'assistant' || !message.toolCalls?.length) {
      out.push(message);
      continue;
    }
    const messageIndex = index - 1;
    let changed = false;
    const calls: ToolCall[] = message.toolCalls.map((call, callIndex) => {
      let id = call.id;
      if (typeof id !== 'string' || id === '' || used.has(id)) {
        id = freshId(messageIndex, callIndex);
        diagnostics.push({ code: 'CONTEXT_TOOL_CALL_ID_REPLACED', severity: 'warning', subject: `history[${messageIndex}]`, message: `tool call ${callIndex} at history[${messageIndex}] has ${call.id === '' ? 'an empty id' : `the id "${call.id}" already used in this request`}; sent as "${id}"` });
      }
      used.add(id);
      const input = outgoingArguments(call.input);
      if (input !== call.input) {
        diagnostics.push({ code: 'CONTEXT_TOOL_ARGUMENTS_NOT_OBJECT', severity: 'warning', subject: `history[${messageIndex}]`, message: `tool call "${call.id}" at history[${messageIndex}] has arguments that are not a JSON object; sent wrapped as {"${INVALID_ARGUMENTS_KEY}": <the exact text>}` });
      }
      if (id === call.id && input === call.input) return call;
      changed = true;
      return { ...call, id, input };
    });
    out.push(changed ? ({ ...message, toolCalls: calls } satisfies AssistantMessage) : message);
    // The run of results right after the message: each answers the first still-unanswered call with its original id.
    const answered = new Set<number>();
    while (index < history.length && history[index]!.role === 'tool') {
      const result = history[index] as ToolResultMessage;
      const callIndex = message.toolCalls.findIndex((call, position) => !answered.has(position) && call.id === result.toolCallId);
      if (callIndex < 0) break;
      answered.add(callIndex);
      const id = calls[callIndex]!.id;
      out.push(id === result.toolCallId ? result : { ...result, toolCallId: id });
      index += 1;
    }
  }
  return { history: out, diagnostics };
}
