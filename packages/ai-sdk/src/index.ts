// @strata/ai-sdk: Strata inside an AI SDK 6 loop (prepareStep, language-model middleware, read_tool_output).

// The adapter
export { createStrataAiSdk, strataPrepareStep, strataMiddleware } from './strata-ai-sdk.js';
export type { StrataAiSdk, StrataAiSdkOptions, PrepareStepOptions, FinishEvent } from './strata-ai-sdk.js';

// Message conversion (lossless for unchanged messages)
// (the converters over the SDK's shapes live in @strata/context, shared with @strata/mastra; named here as before)
export { importSdkMessages, exportSdkMessages, asImportedImages } from '@strata/context';
export type { SdkMessage, SdkOrigin } from '@strata/context';
export { toLanguageModelMessages } from './language-model-prompt.js';
export type { LanguageModelCallOptions, LanguageModelMessage } from './language-model-prompt.js';
