// Recorded runs that log a model response and its tool results as separate
// events (OpenHands, Claude Code, Codex) are put back together here: a step
// is one assistant message with its results right after it, wherever the
// results were recorded.
import { ContextInputError } from '../errors/context-input-error.js';
import type { AssistantMessage, CanonicalMessage, JsonValue, ReasoningPart, ToolCall, ToolResultMessage } from '../messages.js';

/** One model response being assembled: text, reasoning and calls in the order they were recorded. */
export interface TrajectoryStep {
  readonly kind: 'step';
  text: string[];
  readonly reasoning: ReasoningPart[];
  readonly toolCalls: ToolCall[];
  readonly results: Map<string, ToolResultMessage>;
  providerMetadata?: { [provider: string]: JsonValue };
}

/**
 * Builds a canonical history from messages and steps. A result joins the
 * step whose call it answers and goes out right after that step's message,
 * in call order; a second result for the same call, or one for a call no
 * step made, stays where it was recorded (the composer sends it as a data
 * observation). A call no result answers stays open (the composer answers it
 * as interrupted). A call id a step already holds is recorded once.
 */
export class StepHistory {
  private readonly entries: Array<CanonicalMessage | TrajectoryStep> = [];
  private readonly owners = new Map<string, TrajectoryStep>();
  private readonly keyed = new Map<string, TrajectoryStep>();

  /** A message in recorded order. */
  push(message: CanonicalMessage): void {
    this.entries.push(message);
  }

  /** The step recorded under `key` (one model response), else a new step at the end. */
  step(key?: string): TrajectoryStep {
    const known = key === undefined ? undefined : this.keyed.get(key);
    if (known) return known;
    const step: TrajectoryStep = { kind: 'step', text: [], reasoning: [], toolCalls: [], results: new Map() };
    this.entries.push(step);
    if (key !== undefined) this.keyed.set(key, step);
    return step;
  }

  /** Adds a call to `step`, unless a step already holds a call with its id. */
  call(step: TrajectoryStep, call: ToolCall): void {
    if (this.owners.has(call.id)) return;
    this.owners.set(call.id, step);
    step.toolCalls.push(call);
  }

  /** The tool name of the call `callId`, when a step made it. */
  toolName(callId: string): string | undefined {
    return this.owners.get(callId)?.toolCalls.find((call) => call.id === callId)?.name;
  }

  /** Whether a step made the call `callId` and it has no result yet. */
  isOpen(callId: string): boolean {
    const owner = this.owners.get(callId);
    return owner !== undefined && !owner.results.has(callId);
  }

  /** A tool result: after its step's message when a step made the call, else in recorded order. */
  result(result: ToolResultMessage): void {
    const owner = this.owners.get(result.toolCallId);
    if (owner && !owner.results.has(result.toolCallId)) owner.results.set(result.toolCallId, result);
    else this.entries.push(result);
  }

  /** The history: each step as its assistant message then its results; a step with nothing in it is left out. */
  build(): CanonicalMessage[] {
    const history: CanonicalMessage[] = [];
    for (const entry of this.entries) {
      if (!('kind' in entry)) {
        history.push(entry);
        continue;
      }
      const content = entry.text.join('');
      if (content === '' && entry.reasoning.length === 0 && entry.toolCalls.length === 0) continue;
      const assistant: AssistantMessage = {
        role: 'assistant',
        content,
        ...(entry.reasoning.length > 0 ? { reasoning: entry.reasoning } : {}),
        ...(entry.toolCalls.length > 0 ? { toolCalls: entry.toolCalls } : {}),
        ...(entry.providerMetadata ? { providerMetadata: entry.providerMetadata } : {}),
      };
      history.push(assistant);
      for (const call of entry.toolCalls) {
        const result = entry.results.get(call.id);
        if (result) history.push(result);
      }
    }
    return history;
  }
}

/** Whether a history holds an agent turn (an assistant message). */
export function hasAgentTurn(history: readonly CanonicalMessage[]): boolean {
  return history.some((message) => message.role === 'assistant');
}

/** One line (or array item) of a session stream, named as errors name it: `line 4` or `[3]`. */
export interface TrajectoryLine {
  readonly record: string;
  readonly value: unknown;
}

/**
 * A session stream's lines: JSONL text (blank lines skipped; a line that is
 * not JSON is an error naming it) or an array of already parsed lines.
 */
export function trajectoryLines(value: unknown, expected: string): TrajectoryLine[] {
  if (Array.isArray(value)) return value.map((item, index) => ({ record: `[${index}]`, value: item }));
  if (typeof value !== 'string') throw ContextInputError.unexpected({ code: 'CONTEXT_MESSAGE_INVALID', path: 'session', expected, actual: value });
  const lines: TrajectoryLine[] = [];
  value.split('\n').forEach((line, index) => {
    if (line.trim() === '') return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      throw new ContextInputError({ code: 'CONTEXT_TRAJECTORY_INVALID', culprit: `line ${index + 1}`, message: `line ${index + 1}: expected a JSON value, got text that is not JSON` });
    }
    lines.push({ record: `line ${index + 1}`, value: parsed });
  });
  return lines;
}

/** `error` with `record` before its culprit and message (`line 4: message.content`). */
export function inRecord(record: string, error: ContextInputError): ContextInputError {
  return new ContextInputError({ code: error.code, culprit: `${record}: ${error.culprit}`, message: `${record}: ${error.message}`, cause: error });
}

/**
 * Reads each line with `read`. A line that fails is an error naming the
 * line: thrown when `onError` is not given, else handed to it and the line
 * left out (the other lines still import).
 */
export function eachLine(lines: readonly TrajectoryLine[], read: (line: TrajectoryLine) => void, onError: ((error: ContextInputError) => void) | undefined): void {
  for (const line of lines) {
    try {
      read(line);
    } catch (caught) {
      if (!ContextInputError.isInstance(caught)) throw caught;
      const error = caught.culprit === line.record || caught.culprit.startsWith(`${line.record}: `) ? caught : inRecord(line.record, caught);
      if (!onError) throw error;
      onError(error);
    }
  }
}
