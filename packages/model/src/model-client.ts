import type { AssistantMessage, CanonicalHistory, JsonValue, ToolCall, ToolSchema } from '@strata/context';
import type { RateLimitError } from './errors/rate-limit-error.js';
import type { TransientProviderError } from './errors/transient-provider-error.js';
import type { ModelCallError } from './normalize-provider-error.js';

/**
 * The port the agent loop streams model turns through. Declared here,
 * implemented over AI SDK providers by `createModelClient`; tests use the same
 * implementation over `ScriptedLanguageModel`.
 */
export interface ModelClient {
  /** The provider id of the underlying model (`openai.chat`, `anthropic.messages`, `scripted`). */
  readonly provider: string;
  readonly modelId: string;
  /**
   * Streams one model turn. Never throws for a provider failure or an abort:
   * the last event is always exactly one of `finish`, `error` or `aborted`.
   */
  stream(request: ModelRequest): AsyncIterable<ModelEvent>;
}

export type ReasoningEffort = 'minimal' | 'low' | 'medium' | 'high';

/**
 * Thinking / reasoning controls, mapped to each provider's own options:
 * OpenAI `reasoningEffort`, Anthropic `thinking` with a token budget, an
 * OpenAI-compatible server's `reasoningEffort`.
 */
export interface ReasoningControl {
  /** `false` turns thinking off where the provider can (Anthropic `disabled`). */
  readonly enabled?: boolean;
  readonly effort?: ReasoningEffort;
  /** Thinking budget in tokens (Anthropic); other providers derive an effort from it. */
  readonly budgetTokens?: number;
}

/** Provider-keyed options passed to the provider verbatim (`{ openai: { ... } }`). */
export type ProviderOptions = { readonly [provider: string]: { readonly [key: string]: JsonValue } };

export type ModelToolChoice = 'auto' | 'none' | 'required' | { readonly toolName: string };

export interface ModelRequest {
  /** Canonical history; a leading system message is the system prompt. */
  readonly messages: CanonicalHistory;
  /** A system prompt sent before `messages`, for callers that keep it apart. */
  readonly system?: string;
  /** Tools the model may call, in the order given (the tool layer sorts them). */
  readonly tools?: readonly ToolSchema[];
  readonly toolChoice?: ModelToolChoice;
  /** Cancels the turn; combined with the timeout into one signal. */
  readonly signal?: AbortSignal;
  /** Overrides the client's per-turn timeout. */
  readonly timeoutMs?: number;
  readonly maxOutputTokens?: number;
  readonly temperature?: number;
  readonly reasoning?: ReasoningControl;
  /** Merged over the client's defaults and the reasoning mapping, per provider key; these win. */
  readonly providerOptions?: ProviderOptions;
  readonly headers?: Readonly<Record<string, string>>;
}

/** Token usage of one call. A figure the provider did not report is absent, not zero. */
export interface ModelUsage {
  readonly inputTokens?: number;
  readonly outputTokens?: number;
  /** Input tokens read from the provider's prompt cache (part of `inputTokens`). */
  readonly cachedInputTokens?: number;
  /** Input tokens written to the provider's prompt cache (Anthropic). */
  readonly cacheWriteInputTokens?: number;
  /** Output tokens spent on reasoning (part of `outputTokens`). */
  readonly reasoningTokens?: number;
}

/** What a provider says about its response: its id and the model that answered. */
export interface ModelResponseMetadata {
  readonly id?: string;
  readonly modelId?: string;
}

export type ModelFinishReason = 'stop' | 'length' | 'content-filter' | 'tool-calls' | 'error' | 'other';

export type ModelEvent =
  | { readonly type: 'text-delta'; readonly text: string }
  | { readonly type: 'reasoning-delta'; readonly text: string }
  /** A complete tool call, with its input parsed. Parallel calls arrive one event each, in order. */
  | { readonly type: 'tool-call'; readonly toolCall: ToolCall }
  | { readonly type: 'usage'; readonly usage: ModelUsage }
  /** A rate limit or transient failure before any output; the client waits `delayMs` and tries again. */
  | { readonly type: 'retry'; readonly attempt: number; readonly delayMs: number; readonly error: RateLimitError | TransientProviderError }
  /** The turn ended. `message` is the canonical assistant message to append to the history. */
  | {
      readonly type: 'finish';
      readonly reason: ModelFinishReason;
      /** The provider's own finish reason (`end_turn`, `tool_calls`). */
      readonly rawReason?: string;
      readonly message: AssistantMessage;
      readonly usage: ModelUsage;
      /** The provider's response id and the model that answered (which may differ from the one asked for), when the provider said. */
      readonly response?: ModelResponseMetadata;
      /** Provider warnings about the request (an unsupported setting), as text. */
      readonly warnings: readonly string[];
    }
  /** The turn failed. `partial` holds what arrived before the failure; never append it as is. */
  | { readonly type: 'error'; readonly error: ModelCallError; readonly partial: AssistantMessage }
  /** The signal fired: a cancel, or the timeout when `timedOut`. `reason` is the signal's reason. */
  | { readonly type: 'aborted'; readonly reason: unknown; readonly timedOut: boolean; readonly partial: AssistantMessage };

/** One model turn collected: what `generate` returns. */
export interface ModelResult {
  readonly message: AssistantMessage;
  readonly reason: ModelFinishReason;
  readonly rawReason?: string;
  readonly usage: ModelUsage;
  readonly warnings: readonly string[];
}
