// Test helpers of @strata/agent's own tests; not exported from the package index.
import assert from 'node:assert/strict';
import { buildHistoryUnits, toOpenAIChat, type CanonicalHistory, type ContextTraceV5 } from '@strata/context';

/**
 * Whether a promise settles within a number of event-loop turns, without
 * waiting on the clock: work that only awaits in-memory stores settles in a few.
 */
export async function settlesWithin<T>(promise: Promise<T>, turns = 200): Promise<{ settled: true; value: T } | { settled: false }> {
  let outcome: { settled: true; value: T } | undefined;
  let failure: { error: unknown } | undefined;
  promise.then(
    (value) => (outcome = { settled: true, value }),
    (error: unknown) => (failure = { error }),
  );
  for (let turn = 0; turn < turns && !outcome && !failure; turn += 1) await new Promise((resolve) => setImmediate(resolve));
  if (failure) throw failure.error;
  return outcome ?? { settled: false };
}

/** A promise with its resolve, for handlers that tell the test they started. */
export function signalled<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => (resolve = done));
  return { promise, resolve };
}

/** Every step is whole: each assistant message with calls is followed at once by one result per call. */
export function assertStepsWhole(history: CanonicalHistory, label = 'history'): void {
  history.forEach((message, index) => {
    if (message.role !== 'assistant' || !message.toolCalls?.length) return;
    const results = history.slice(index + 1, index + 1 + message.toolCalls.length);
    assert.deepEqual(
      results.map((result) => (result.role === 'tool' ? result.toolCallId : `${result.role} message`)),
      message.toolCalls.map((call) => call.id),
      `${label}: the results of the assistant message at ${index} follow it directly`,
    );
  });
  const last = buildHistoryUnits(history).at(-1);
  assert.deepEqual(last?.pendingCallIds ?? [], [], `${label}: no call is left open`);
}

type ProviderRules = { violations(messages: unknown[], provider: 'openai' | 'anthropic'): unknown[] } | undefined;

/** Checks every traced model input against the independent provider-rules oracle (skipped when it is absent). */
export function assertProviderSafe(rules: ProviderRules, traces: readonly ContextTraceV5[]): void {
  if (!rules) return;
  for (const trace of traces) {
    const chat = toOpenAIChat(trace.llmInput.messages);
    assert.deepEqual(rules.violations(chat, 'openai'), [], `turn ${trace.turn}`);
    assert.deepEqual(rules.violations(chat, 'anthropic'), [], `turn ${trace.turn}`);
  }
}
