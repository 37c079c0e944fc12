// @strata/ai-sdk: Strata inside an AI SDK 6 loop (prepareStep, language-model middleware, read_tool_output).

// The adapter
export { createStrataAiSdk, strataPrepareStep, strataMiddleware } from './strata-ai-sdk.js';
export type { StrataAiSdk, StrataAiSdkOptions, PrepareStepOptions, FinishEvent } from './strata-ai-sdk.js';

// Message conversion (lossless for unchanged messages)
export { importSdkMessages, exportSdkMessages } from './ai-sdk-history.js';
export type { SdkMessage, SdkOrigin } from './ai-sdk-history.js';
export { toLanguageModelMessages, asImportedImages } from './language-model-prompt.js';
export type { LanguageModelCallOptions, LanguageModelMessage } from './language-model-prompt.js';
