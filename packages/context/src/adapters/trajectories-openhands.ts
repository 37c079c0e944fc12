// OpenHands event streams: a saved trajectory (a JSON array of events), an
// evaluation record's `history`, or JSONL of events. Each event is an
// action or an observation, with its `source` (user, agent, environment);
// an agent action made through function calling carries
// `tool_call_metadata` (the call id, the function and the model response it
// came from), and so does the observation that answers it.
import type { ContextInputError } from '../errors/context-input-error.js';
import type { CanonicalMessage, JsonValue, MediaPart, ToolCall } from '../messages.js';
import { type Fields, checkedMedia, isRecord, readArray, readJson, readNonEmptyString, readOptionalString, readRecord, readString, readToolArguments, unexpected } from './adapter-input.js';
import { mediaFromUrl } from './media.js';
import { eachLine, StepHistory, trajectoryLines, type TrajectoryLine } from './trajectories-steps.js';

/** Actions that only steer the harness (state changes, condensation, recall): never part of the history. */
const HARNESS_ACTIONS = new Set(['null', 'start', 'pause', 'resume', 'stop', 'change_agent_state', 'recall', 'condensation', 'condensation_request', 'loop_recovery']);
/** Observations of the harness itself, left out unless they answer a call. */
const HARNESS_OBSERVATIONS = new Set(['null', 'agent_state_changed', 'recall', 'condense', 'loop_detection']);
/** Argument fields that describe the action rather than the call's input. */
const NOT_INPUT = new Set(['thought', 'security_risk', 'confirmation_state', 'hidden', 'is_confirmed', 'image_urls', 'wait_for_response']);

/** Whether a value is one OpenHands event. */
export function isOpenHandsEvent(value: unknown): boolean {
  return isRecord(value) && (typeof value.action === 'string' || typeof value.observation === 'string') && value.role === undefined;
}

/** Whether a value is a list of OpenHands events (or of `[action, observation]` pairs, the first saved form). */
export function isOpenHandsEventList(value: unknown): value is unknown[] {
  if (!Array.isArray(value) || value.length === 0) return false;
  const first = Array.isArray(value[0]) ? value[0][0] : value[0];
  return isOpenHandsEvent(first);
}

/**
 * OpenHands events to canonical history. A system action is the system
 * prompt; a message action is a user or assistant turn by its source; the
 * agent's tool actions of one model response (same `model_response.id`)
 * are one assistant message (its text and DeepSeek `reasoning_content` from
 * the response, else the action's `thought`), each a call with the id,
 * function and arguments the model sent (else the action's own arguments);
 * an observation is the result of the call it names (`tool_call_metadata`,
 * else the action it is the `cause` of), an error when it is an `error`
 * observation or `success` is false. `finish` and `reject` are the agent's
 * closing text. Harness actions and observations (state changes,
 * condensation, recall, null) are left out; another observation that
 * answers no call is an environment note (a user message), and a user's
 * own command a user message saying what was run. Any other shape is a
 * `ContextInputError` naming the event and field.
 */
export function readOpenHandsEvents(events: readonly TrajectoryLine[], onError?: (error: ContextInputError) => void): CanonicalMessage[] {
  const steps = new StepHistory();
  const callOfEvent = new Map<number, string>();
  eachLine(events, (line) => {
    // The first saved form: `[action, observation]` pairs.
    const pair = Array.isArray(line.value) ? line.value : [line.value];
    pair.forEach((value, index) => readEvent(value, Array.isArray(line.value) ? `[${index}]` : 'event', steps, callOfEvent, line.record));
  }, onError);
  return steps.build();
}

function readEvent(value: unknown, path: string, steps: StepHistory, callOfEvent: Map<number, string>, record: string): void {
  const event = readRecord(value, path, 'an event object with an action or an observation');
  const source = readOptionalString(event.source ?? undefined, `${path}.source`);
  const metadata = event.tool_call_metadata === undefined || event.tool_call_metadata === null ? undefined : readRecord(event.tool_call_metadata, `${path}.tool_call_metadata`, 'an object with tool_call_id and function_name');
  const eventId = typeof event.id === 'number' ? event.id : undefined;
  if (typeof event.action === 'string') {
    const args = event.args === undefined || event.args === null ? {} : readRecord(event.args, `${path}.args`, 'an object of action arguments');
    readAction({ action: readNonEmptyString(event.action, `${path}.action`), args, source, metadata, eventId, path, steps, callOfEvent, record });
    return;
  }
  if (typeof event.observation !== 'string') throw unexpected(`${path}.action`, 'the name of an action (or an observation)', event.action ?? event.observation);
  const content = event.content === undefined || event.content === null ? '' : readString(event.content, `${path}.content`);
  const metaId = metadata === undefined ? undefined : readOptionalString(metadata.tool_call_id, `${path}.tool_call_metadata.tool_call_id`);
  const cause = typeof event.cause === 'number' ? callOfEvent.get(event.cause) : undefined;
  const callId = metaId !== undefined && steps.isOpen(metaId) ? metaId : cause !== undefined && steps.isOpen(cause) ? cause : undefined;
  if (callId !== undefined) {
    const isError = event.observation === 'error' || event.success === false;
    steps.result({ role: 'tool', toolCallId: callId, toolName: steps.toolName(callId) ?? 'unknown', content, ...(isError ? { isError: true } : {}) });
    return;
  }
  if (HARNESS_OBSERVATIONS.has(event.observation) || content.trim() === '') return;
  steps.push({ role: 'user', content });
}

interface ActionContext {
  readonly action: string;
  readonly args: Fields;
  readonly source: string | undefined;
  readonly metadata: Fields | undefined;
  readonly eventId: number | undefined;
  readonly path: string;
  readonly steps: StepHistory;
  readonly callOfEvent: Map<number, string>;
  readonly record: string;
}

function readAction(context: ActionContext): void {
  const { action, args, source, metadata, path, steps } = context;
  if (HARNESS_ACTIONS.has(action)) return;
  if (action === 'system') {
    steps.push({ role: 'system', content: readString(args.content ?? '', `${path}.args.content`) });
    return;
  }
  const response = metadata === undefined ? undefined : responseMessage(metadata, `${path}.tool_call_metadata`);
  if (action === 'message') {
    const content = readString(args.content ?? '', `${path}.args.content`);
    if (source === 'user') {
      const media = imageUrls(args.image_urls, `${path}.args.image_urls`);
      steps.push(media.length > 0 ? { role: 'user', content, media } : { role: 'user', content });
    } else steps.push({ role: 'assistant', content });
    return;
  }
  if (action === 'finish' || action === 'reject') {
    const texts = [args.thought, response?.content, args.final_thought, action === 'reject' && isRecord(args.outputs) ? args.outputs.reason : undefined];
    const unique = [...new Set(texts.filter((text): text is string => typeof text === 'string' && text.trim() !== ''))];
    steps.push({ role: source === 'user' ? 'user' : 'assistant', content: unique.join('\n') });
    return;
  }
  if (source === 'user' && metadata === undefined) {
    const what = typeof args.command === 'string' ? args.command : JSON.stringify(readJson(args, `${path}.args`));
    steps.push({ role: 'user', content: `The user ran ${action}: ${what}` });
    return;
  }
  const call = readActionCall(context, response);
  const responseId = response?.id;
  const step = steps.step(responseId === undefined ? undefined : `response ${responseId}`);
  if (step.text.length === 0 && step.toolCalls.length === 0) {
    const text = response?.content ?? (typeof args.thought === 'string' ? args.thought : '');
    if (text !== '') step.text.push(text);
    if (response?.reasoning) step.reasoning.push({ text: response.reasoning });
  }
  steps.call(step, call);
  if (context.eventId !== undefined) context.callOfEvent.set(context.eventId, call.id);
}

/** The call an agent action stands for: as the model sent it when the response is recorded, else from the action itself. */
function readActionCall(context: ActionContext, response: ResponseMessage | undefined): ToolCall {
  const { action, args, metadata, path } = context;
  const metaId = metadata === undefined ? undefined : readOptionalString(metadata.tool_call_id, `${path}.tool_call_metadata.tool_call_id`);
  const id = metaId !== undefined && metaId !== '' ? metaId : `call_${context.eventId ?? context.record.replace(/\W+/g, '_')}`;
  const functionName = metadata === undefined ? undefined : readOptionalString(metadata.function_name, `${path}.tool_call_metadata.function_name`);
  const sent = response?.toolCalls.get(id);
  if (sent) return { id, name: sent.name, input: sent.input };
  const input: Record<string, JsonValue> = {};
  for (const [key, value] of Object.entries(args)) if (!NOT_INPUT.has(key) && value !== undefined) input[key] = readJson(value, `${path}.args.${key}`);
  return { id, name: functionName !== undefined && functionName !== '' ? functionName : action, input };
}

interface ResponseMessage {
  readonly id: string | undefined;
  readonly content: string | undefined;
  readonly reasoning: string | undefined;
  readonly toolCalls: ReadonlyMap<string, { name: string; input: JsonValue }>;
}

/** The assistant message of `tool_call_metadata.model_response` (a chat completion), when it was recorded. */
function responseMessage(metadata: Fields, path: string): ResponseMessage | undefined {
  const response = metadata.model_response;
  if (!isRecord(response)) return undefined;
  const id = typeof response.id === 'string' && response.id !== '' ? response.id : undefined;
  const choice = Array.isArray(response.choices) ? response.choices[0] : undefined;
  const message = isRecord(choice) && isRecord(choice.message) ? choice.message : undefined;
  if (!message) return { id, content: undefined, reasoning: undefined, toolCalls: new Map() };
  const messagePath = `${path}.model_response.choices[0].message`;
  const content = message.content === undefined || message.content === null ? undefined : readString(message.content, `${messagePath}.content`);
  const reasoning = message.reasoning_content === undefined || message.reasoning_content === null ? undefined : readString(message.reasoning_content, `${messagePath}.reasoning_content`);
  const toolCalls = new Map<string, { name: string; input: JsonValue }>();
  (Array.isArray(message.tool_calls) ? message.tool_calls : []).forEach((raw, index) => {
    const callPath = `${messagePath}.tool_calls[${index}]`;
    const call = readRecord(raw, callPath, 'a tool call object');
    const fn = readRecord(call.function, `${callPath}.function`, 'an object with name and arguments');
    if (typeof call.id !== 'string' || typeof fn.name !== 'string' || fn.name === '') return;
    const args = fn.arguments;
    const input = typeof args === 'string' ? readToolArguments(args, `${callPath}.function.arguments`) : args === undefined || args === null ? {} : readJson(args, `${callPath}.function.arguments`);
    toolCalls.set(call.id, { name: fn.name, input });
  });
  return { id, content: content === '' ? undefined : content, reasoning: reasoning === '' ? undefined : reasoning, toolCalls };
}

function imageUrls(value: unknown, path: string): MediaPart[] {
  if (value === undefined || value === null) return [];
  return readArray(value, path, 'an array of image URLs').map((url, index) => checkedMedia(mediaFromUrl({ type: 'image', url: readString(url, `${path}[${index}]`) }), `${path}[${index}]`));
}

/**
 * An OpenHands event stream (a JSON array of events, an object with a
 * `history` of events, or JSONL text of events) to canonical history, or
 * one `ContextInputError` naming the event and field.
 */
export function fromOpenHandsEvents(events: unknown): CanonicalMessage[] {
  return readOpenHandsEvents(openHandsLines(events));
}

/** The events of any accepted shape, each named as errors name it. */
function openHandsLines(value: unknown): TrajectoryLine[] {
  if (typeof value === 'string') return trajectoryLines(value, 'JSONL text of events');
  const list = isRecord(value) && value.history !== undefined ? value.history : value;
  const path = isRecord(value) ? 'history' : 'events';
  return readArray(list, path, 'an array of events').map((event, index) => ({ record: `${path}[${index}]`, value: event }));
}
