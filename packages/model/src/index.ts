/**
 * @strata/model: the model transport of the native agent loop.
 *
 * The `ModelClient` port and its implementation over AI SDK 6 providers
 * (`LanguageModelV3`, called through `doStream`), model strings and the
 * environment they read, typed provider errors, a model-backed
 * `Summarizer`, and `ScriptedLanguageModel`, the deterministic model that
 * tests and examples use in place of a provider.
 */

// Errors
export { ProviderFailureError, type ProviderFailureDetails } from './errors/provider-failure-error.js';
export { ContextOverflowError } from './errors/context-overflow-error.js';
export { ProviderError } from './errors/provider-error.js';
export { AuthenticationError } from './errors/authentication-error.js';
export { RateLimitError } from './errors/rate-limit-error.js';
export { TransientProviderError } from './errors/transient-provider-error.js';
export { ModelConfigurationError, type ModelConfigurationErrorCode } from './errors/model-configuration-error.js';
export type { ModelCallError } from './normalize-provider-error.js';

// The model-client port
export type {
  ModelClient,
  ModelEvent,
  ModelFinishReason,
  ModelRequest,
  ModelResult,
  ModelToolChoice,
  ModelUsage,
  ModelResponseMetadata,
  ProviderOptions,
  ReasoningControl,
  ReasoningEffort,
} from './model-client.js';
export { generate } from './generate.js';

// The AI SDK adapter
export { createModelClient, type ModelClientOptions } from './create-model-client.js';
export type { RetryOptions } from './retry-policy.js';
export {
  createLanguageModel,
  createModelClientFromSpecifier,
  type LanguageModelOptions,
  type ModelEnvironment,
} from './create-language-model.js';
export { parseModelSpecifier } from './model-specifier.js';
export type { ModelProviderName, ModelSpecifier } from './model-specifier.js';

// Exact token counts: a model's tokenizer.json, a provider's count endpoint
export { loadTokenizerJsonEstimator, TokenizerJsonEstimator, TOKENIZER_LIBRARY, type TokenizerJsonEstimatorOptions } from './tokenizer-json-estimator.js';
export {
  ProviderTokenCounter,
  TOKEN_COUNT_TIMEOUT_MS,
  type PrecountInput,
  type PrecountReport,
  type ProviderTokenCounterOptions,
  type TokenCountDiagnostic,
  type TokenCountProvider,
} from './provider-token-counter.js';

// The model's window, as its server says it
export { ModelWindowDiscovery, WINDOW_DISCOVERY_TIMEOUT_MS, type DiscoverWindowOptions, type DiscoveredWindow, type WindowDiagnostic, type WindowServer } from './model-window-discovery.js';

// Summarizer
export { redactingModelClient, redactError, type RedactingModelClientOptions } from './redacting-model-client.js';
export { createModelSummarizer, type ModelSummarizerOptions } from './model-summarizer.js';

// Scripted model (tests and examples)
export { ScriptedLanguageModel, type ScriptedLanguageModelOptions, type ScriptedPart, type ScriptedTurn } from './scripted-language-model.js';
export { openAIOverflowError } from './scripted-provider-errors.js';
