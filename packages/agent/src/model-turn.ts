import type { AssembledTurn, AssistantMessage } from '@strata/context';
import { ContextOverflowError, type ModelCallError, type ModelClient, type ModelEvent, type ModelUsage } from '@strata/model';
import { untilAborted } from './abort-race.js';

type StreamOutcome =
  | { readonly type: 'finish'; readonly message: AssistantMessage; readonly usage: ModelUsage }
  | { readonly type: 'error'; readonly error: ModelCallError }
  | { readonly type: 'aborted'; readonly reason: unknown; readonly timedOut: boolean };

export type ModelTurnOutcome = StreamOutcome & { readonly assembled: AssembledTurn };

export interface ModelTurnOptions {
  /** Assembles (and commits) the turn's context; `recovery` is set for the one forced pass after an overflow. */
  readonly assemble: (recovery?: { readonly reason: string; readonly attempt: number }) => Promise<AssembledTurn>;
  readonly client: ModelClient;
  readonly signal: AbortSignal;
  readonly onEvent?: (event: ModelEvent) => void;
  readonly onRecovery?: (attempt: number) => void;
}

/**
 * Streams one request. Each wait for the next event is raced with the
 * signal, so a stream that stalls and ignores its abort still ends on schedule.
 */
async function streamOnce(client: ModelClient, assembled: AssembledTurn, signal: AbortSignal, onEvent?: (event: ModelEvent) => void): Promise<StreamOutcome> {
  const stream = client.stream({ messages: assembled.input.messages, tools: assembled.input.tools, signal })[Symbol.asyncIterator]();
  try {
    for (;;) {
      let next: IteratorResult<ModelEvent>;
      try {
        next = await untilAborted(stream.next(), signal);
      } catch (error) {
        if (signal.aborted) return { type: 'aborted', reason: signal.reason, timedOut: false };
        throw error;
      }
      if (next.done) break;
      const event = next.value;
      onEvent?.(event);
      if (event.type === 'finish') return { type: 'finish', message: event.message, usage: event.usage };
      if (event.type === 'error') return { type: 'error', error: event.error };
      if (event.type === 'aborted') return { type: 'aborted', reason: event.reason, timedOut: event.timedOut };
    }
  } finally {
    // Not awaited: a stalled stream may never answer its return.
    void stream.return?.().catch(() => undefined);
  }
  throw new Error('the model client ended its stream without finish, error or aborted');
}

/**
 * One LLM turn with overflow recovery: when the provider still rejects the
 * request for context-window overflow, the context is assembled again with
 * one forced pressure pass and the same turn is retried exactly once. A
 * second overflow is returned to the caller; there is no retry loop.
 */
export async function runModelTurn(options: ModelTurnOptions): Promise<ModelTurnOutcome> {
  const { client, signal } = options;
  let assembled = await options.assemble();
  const first = await streamOnce(client, assembled, signal, options.onEvent);
  if (first.type !== 'error' || !ContextOverflowError.isInstance(first.error)) return { ...first, assembled };

  options.onRecovery?.(1);
  assembled = await options.assemble({ reason: `context overflow: ${first.error.message}`, attempt: 1 });
  const second = await streamOnce(client, assembled, signal, options.onEvent);
  return { ...second, assembled };
}
