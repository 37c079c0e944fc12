import type { LanguageModelV3, LanguageModelV3CallOptions, LanguageModelV3StreamPart, LanguageModelV3ToolChoice } from '@ai-sdk/provider';
import { AssistantMessageBuilder } from './assistant-message-builder.js';
import type { ModelClient, ModelEvent, ModelRequest, ModelToolChoice, ProviderOptions, ReasoningControl } from './model-client.js';
import { isRetryableModelError, normalizeProviderError } from './normalize-provider-error.js';
import { toLanguageModelPrompt, toLanguageModelTools } from './prompt-conversion.js';
import { mergeProviderOptions, reasoningProviderOptions } from './reasoning-provider-options.js';
import { abortableSleep, retryDelayMs, retrySettings } from './retry-policy.js';
import type { RetryOptions } from './retry-policy.js';

export interface ModelClientOptions {
  /** Any AI SDK 6 language model: a provider's, `ScriptedLanguageModel`, `MockLanguageModelV3`. */
  readonly model: LanguageModelV3;
  readonly retry?: RetryOptions;
  /** Per-turn timeout in milliseconds, combined with the request's signal. Default: none. */
  readonly timeoutMs?: number;
  /** Defaults for every request; the request's own values win. */
  readonly providerOptions?: ProviderOptions;
  readonly reasoning?: ReasoningControl;
  readonly maxOutputTokens?: number;
  /** The wait between retries. Default: a timer; tests pass one that returns at once. */
  readonly sleep?: (delayMs: number, signal: AbortSignal) => Promise<void>;
  /**
   * Where the key came from (`OPENAI_API_KEY`, `the apiKey option`), named
   * in the message of an authentication error (401, 403). Default: not named;
   * `createModelClientFromSpecifier` sets it.
   */
  readonly keyVariable?: string;
  /** The jitter source for retry backoff, a number in [0, 1). Default `Math.random`; tests pass a constant. */
  readonly random?: () => number;
}

const ABORTED = Symbol('aborted');
const FINISHED = Symbol('finished');

/**
 * The `ModelClient` over an AI SDK 6 `LanguageModelV3`. Calls `doStream`
 * directly, converts canonical history to the model's prompt and its stream
 * parts back to agent events and a canonical assistant message.
 *
 * Failures are normalized (`normalizeProviderError`). Rate limits and
 * transient failures are retried with backoff (an authentication error, 401
 * or 403, never is) while nothing has been emitted
 * yet for the attempt (so no delta is ever sent twice), up to
 * `retry.maxAttempts`; an overflow is never retried here. The request's
 * signal and the timeout are one signal, passed to the provider too.
 */
export function createModelClient(options: ModelClientOptions): ModelClient {
  const { model } = options;
  const retry = retrySettings(options.retry);
  const sleep = options.sleep ?? abortableSleep;
  const random = options.random ?? Math.random;

  async function* stream(request: ModelRequest): AsyncGenerator<ModelEvent, void, undefined> {
    const timeoutMs = request.timeoutMs ?? options.timeoutMs;
    const timeout = timeoutMs === undefined ? undefined : turnTimeout(timeoutMs);
    try {
      yield* streamTurn(request, timeout?.signal);
    } finally {
      timeout?.clear();
    }
  }

  async function* streamTurn(request: ModelRequest, timeoutSignal: AbortSignal | undefined): AsyncGenerator<ModelEvent, void, undefined> {
    const signals = [request.signal, timeoutSignal].filter((signal): signal is AbortSignal => signal !== undefined);
    const signal = signals.length === 0 ? new AbortController().signal : AbortSignal.any(signals);
    const callOptions = toCallOptions({ request, defaults: options, provider: model.provider, signal });
    const aborted = (builder: AssistantMessageBuilder): ModelEvent => ({
      type: 'aborted',
      reason: signal.reason,
      timedOut: timeoutSignal?.aborted === true && request.signal?.aborted !== true,
      partial: builder.message(),
    });

    for (let attempt = 1; ; attempt += 1) {
      const builder = new AssistantMessageBuilder();
      const outcome = signal.aborted ? ABORTED : yield* streamAttempt({ model, callOptions, builder, signal });
      if (outcome === FINISHED) return;
      if (outcome === ABORTED || signal.aborted) {
        yield aborted(builder);
        return;
      }
      const error = normalizeProviderError({ error: outcome.failure, provider: model.provider, keyVariable: options.keyVariable });
      if (!isRetryableModelError(error) || builder.hasOutput || attempt >= retry.maxAttempts) {
        yield { type: 'error', error, partial: builder.message() };
        return;
      }
      const delayMs = retryDelayMs({ attempt, error, retry, random });
      yield { type: 'retry', attempt, delayMs, error };
      try {
        await sleep(delayMs, signal);
      } catch {
        yield aborted(new AssistantMessageBuilder());
        return;
      }
    }
  }

  return { provider: model.provider, modelId: model.modelId, stream };
}

/**
 * One call to the model: yields the content events and, when the stream
 * ends normally, the usage and finish events. Returns how it ended; a
 * failure (thrown, or an `error` part) is returned, not thrown, for the
 * caller to normalize and perhaps retry.
 */
async function* streamAttempt(options: {
  model: LanguageModelV3;
  callOptions: LanguageModelV3CallOptions;
  builder: AssistantMessageBuilder;
  signal: AbortSignal;
}): AsyncGenerator<ModelEvent, typeof FINISHED | typeof ABORTED | { failure: unknown }, undefined> {
  const { model, callOptions, builder, signal } = options;
  let reader: ReadableStreamDefaultReader<LanguageModelV3StreamPart> | undefined;
  try {
    const result = await untilAborted(Promise.resolve(model.doStream(callOptions)), signal);
    if (result === ABORTED) return ABORTED;
    reader = result.stream.getReader();
    for (;;) {
      const next = await untilAborted(reader.read(), signal);
      if (next === ABORTED) return ABORTED;
      if (next.done) break;
      if (next.value.type === 'error') return { failure: next.value.error };
      yield* builder.accept(next.value);
    }
  } catch (failure) {
    return { failure };
  } finally {
    if (reader !== undefined) releaseReader(reader);
  }
  // A stream that closes without a finish part still ends the turn.
  const finish = builder.finish ?? { reason: 'other' as const, rawReason: undefined, usage: {} };
  if (builder.finish === undefined) yield { type: 'usage', usage: finish.usage };
  yield {
    type: 'finish',
    reason: finish.reason,
    ...(finish.rawReason === undefined ? {} : { rawReason: finish.rawReason }),
    message: builder.message(),
    usage: finish.usage,
    ...(builder.response.id === undefined && builder.response.modelId === undefined ? {} : { response: builder.response }),
    warnings: builder.warnings,
  };
  return FINISHED;
}

/**
 * A signal that fires with a `TimeoutError` after `timeoutMs`, as
 * `AbortSignal.timeout` does, but on a timer that keeps the process alive
 * while the turn is pending (`AbortSignal.timeout`'s does not, so a stalled
 * in-process model could let the process exit) and is cleared when the turn
 * ends.
 */
function turnTimeout(timeoutMs: number): { signal: AbortSignal; clear(): void } {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new DOMException('The model turn timed out.', 'TimeoutError')), timeoutMs);
  return { signal: controller.signal, clear: () => clearTimeout(timer) };
}

/** Cancels the provider's stream (closing its connection) and lets go of it; never throws. */
function releaseReader(reader: ReadableStreamDefaultReader<LanguageModelV3StreamPart>): void {
  reader.cancel().catch(() => undefined);
  try {
    reader.releaseLock();
  } catch {
    // Already released.
  }
}

/** Resolves with `promise`, or with `ABORTED` as soon as `signal` fires. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T | typeof ABORTED> {
  if (signal.aborted) {
    promise.catch(() => undefined);
    return Promise.resolve(ABORTED);
  }
  return new Promise((resolve, reject) => {
    const onAbort = (): void => resolve(ABORTED);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

function toCallOptions(options: {
  request: ModelRequest;
  defaults: ModelClientOptions;
  provider: string;
  signal: AbortSignal;
}): LanguageModelV3CallOptions {
  const { request, defaults, provider, signal } = options;
  const tools = toLanguageModelTools(request.tools ?? []);
  const maxOutputTokens = request.maxOutputTokens ?? defaults.maxOutputTokens;
  const providerOptions = mergeProviderOptions(
    defaults.providerOptions,
    reasoningProviderOptions(provider, request.reasoning ?? defaults.reasoning),
    request.providerOptions,
  );
  return {
    prompt: toLanguageModelPrompt({ messages: request.messages, system: request.system }),
    ...(tools.length === 0 ? {} : { tools }),
    toolChoice: request.toolChoice === undefined ? undefined : toToolChoice(request.toolChoice),
    maxOutputTokens,
    temperature: request.temperature,
    ...(Object.keys(providerOptions).length === 0 ? {} : { providerOptions }),
    headers: request.headers,
    abortSignal: signal,
  };
}

function toToolChoice(choice: ModelToolChoice): LanguageModelV3ToolChoice {
  return typeof choice === 'string' ? { type: choice } : { type: 'tool', toolName: choice.toolName };
}
