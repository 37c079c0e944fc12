import type { ContextDiagnostic } from './contributor.js';
import type { AssistantMessage, CanonicalHistory, JsonValue, ToolCall, ToolResultMessage } from './messages.js';

/** The key under which arguments that are not a JSON object are sent, as the exact text the model wrote. */
export const INVALID_ARGUMENTS_KEY = 'invalid_arguments';

/** A JSON object: what every provider takes as a tool call's arguments. */
export function isJsonObject(value: unknown): value is { [key: string]: JsonValue } {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Arguments as every provider accepts them: an object; anything else wrapped, its text kept exact. */
function outgoingArguments(input: JsonValue): { [key: string]: JsonValue } {
  if (isJsonObject(input)) return input;
  // A string input is the model's own text that was not JSON (see ToolCall.input).
  return { [INVALID_ARGUMENTS_KEY]: typeof input === 'string' ? input : JSON.stringify(input) };
}

/** One tool step as a request must carry it: the assistant message and the run of results right after it. */
export interface PairedStep {
  readonly assistant: AssistantMessage;
  readonly results: readonly ToolResultMessage[];
  /** One past the step's last message in the history. */
  readonly end: number;
  /** Outgoing ids of the calls no result answers, in call order. */
  readonly pendingCallIds: readonly string[];
  /** Every outgoing call id the step uses. */
  readonly callIds: readonly string[];
  readonly diagnostics: readonly ContextDiagnostic[];
}

/**
 * Reads the tool step at `history[index]` (an assistant message with calls)
 * and makes it valid for a request: every call id non-empty and unique among
 * the ids in `used` and the step's own, every call's arguments a JSON object.
 * A duplicate or empty id is replaced by a deterministic one
 * (`strata_<message>_<call>`); the results right after the message are
 * re-pointed by position: the first result naming an id answers the first
 * call that had it. The step ends at the first message that is not such a
 * result. Messages that need no change are returned as they are (same
 * objects), so previews and caches keyed by message keep working. A copy of
 * a message with signed reasoning is never sent: the composer leaves such a
 * step out whole instead (`signed-reasoning.ts`).
 */
export function pairStep(history: CanonicalHistory, index: number, used: ReadonlySet<string>): PairedStep {
  const message = history[index] as AssistantMessage;
  const calls = message.toolCalls ?? [];
  const diagnostics: ContextDiagnostic[] = [];
  const callIds: string[] = [];
  const own = new Set<string>();
  const taken = (id: string) => used.has(id) || own.has(id);
  let changed = false;
  const outgoing: ToolCall[] = calls.map((call, callIndex) => {
    let id = call.id;
    if (id === '' || taken(id)) {
      id = `strata_${index}_${callIndex}`;
      for (let suffix = 2; taken(id); suffix += 1) id = `strata_${index}_${callIndex}_${suffix}`;
      diagnostics.push({ code: 'CONTEXT_TOOL_CALL_ID_REPLACED', severity: 'warning', subject: `history[${index}]`, message: `tool call ${callIndex} at history[${index}] has ${call.id === '' ? 'an empty id' : `the id "${call.id}" already used in this request`}; sent as "${id}"` });
    }
    callIds.push(id);
    own.add(id);
    const input = outgoingArguments(call.input);
    if (input !== call.input) {
      diagnostics.push({ code: 'CONTEXT_TOOL_ARGUMENTS_NOT_OBJECT', severity: 'warning', subject: `history[${index}]`, message: `tool call "${call.id}" at history[${index}] has arguments that are not a JSON object; sent wrapped as {"${INVALID_ARGUMENTS_KEY}": <the exact text>}` });
    }
    if (id === call.id && input === call.input) return call;
    changed = true;
    return { ...call, id, input };
  });
  const results: ToolResultMessage[] = [];
  const answered = new Set<number>();
  let end = index + 1;
  while (end < history.length && history[end]!.role === 'tool') {
    const result = history[end] as ToolResultMessage;
    const callIndex = calls.findIndex((call, position) => !answered.has(position) && call.id === result.toolCallId);
    if (callIndex < 0) break;
    answered.add(callIndex);
    const id = callIds[callIndex]!;
    results.push(id === result.toolCallId ? result : { ...result, toolCallId: id });
    end += 1;
  }
  return {
    assistant: changed ? { ...message, toolCalls: outgoing } : message,
    results,
    end,
    pendingCallIds: callIds.filter((_, callIndex) => !answered.has(callIndex)),
    callIds,
    diagnostics,
  };
}
