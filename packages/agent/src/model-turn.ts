import { untilAborted, type AssembledTurn, type AssistantMessage, type TurnRecovery } from '@strata/context';
import { ContextOverflowError, type ModelCallError, type ModelClient, type ModelEvent, type ModelFinishReason, type ModelResponseMetadata, type ModelUsage } from '@strata/model';

export type StreamOutcome =
  | { readonly type: 'finish'; readonly message: AssistantMessage; readonly usage: ModelUsage; readonly finishReason?: ModelFinishReason; readonly response?: ModelResponseMetadata }
  | { readonly type: 'error'; readonly error: ModelCallError }
  | { readonly type: 'aborted'; readonly reason: unknown; readonly timedOut: boolean };

export type ModelTurnOutcome = StreamOutcome & { readonly assembled: AssembledTurn };

/** One request of a turn: the input it was made from, how it ended, and how long assembly and the call took. */
export interface ModelAttempt {
  readonly assembled: AssembledTurn;
  readonly outcome: StreamOutcome;
  readonly assemblyMs: number;
  readonly modelMs: number;
}

export interface ModelTurnOptions {
  /** Assembles (and commits) the turn's context; `recovery` is set for the one forced pass after an overflow. */
  readonly assemble: (recovery?: TurnRecovery) => Promise<AssembledTurn>;
  readonly client: ModelClient;
  readonly signal: AbortSignal;
  readonly onEvent?: (event: ModelEvent) => void;
  readonly onRecovery?: (attempt: number) => void;
  /** Called as each request ends (the first, and the retry after an overflow), before the turn goes on. */
  readonly onAttempt?: (attempt: ModelAttempt) => Promise<void>;
  /** The run's clock for the attempt's latencies. Default: performance.now. */
  readonly now?: () => number;
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
      if (event.type === 'finish') return { type: 'finish', message: event.message, usage: event.usage, finishReason: event.reason, ...(event.response === undefined ? {} : { response: event.response }) };
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
 * request for context-window overflow, the context is assembled again for a
 * smaller cap (scaled by the provider's limit over its count, when its error
 * says them) with one forced pressure pass, and the same turn is retried
 * exactly once. A second overflow is returned to the caller; there is no
 * retry loop.
 */
export async function runModelTurn(options: ModelTurnOptions): Promise<ModelTurnOutcome> {
  const first = await attempt(options);
  if (first.type !== 'error' || !ContextOverflowError.isInstance(first.error)) return first;
  options.onRecovery?.(1);
  const { requestedTokens, limitTokens } = first.error;
  return attempt(options, { reason: `context overflow: ${first.error.message}`, attempt: 1, requestedTokens, limitTokens });
}

/** Assembles and streams one request, timed, and reports it. */
async function attempt(options: ModelTurnOptions, recovery?: TurnRecovery): Promise<ModelTurnOutcome> {
  const now = options.now ?? (() => performance.now());
  const started = now();
  const assembled = await (recovery ? options.assemble(recovery) : options.assemble());
  const assembledAt = now();
  const outcome = await streamOnce(options.client, assembled, options.signal, options.onEvent);
  await options.onAttempt?.({ assembled, outcome, assemblyMs: assembledAt - started, modelMs: now() - assembledAt });
  return { ...outcome, assembled };
}
