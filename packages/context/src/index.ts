// @strata/context: the per-turn context pipeline. Pure: no environment, no file system.

// Canonical history
export { isToolResult } from './messages.js';
export type {
  CanonicalHistory,
  CanonicalMessage,
  MediaPart,
  SystemMessage,
  UserMessage,
  AssistantMessage,
  ReasoningPart,
  ToolCall,
  ToolResultMessage,
  ToolOutputRef,
  JsonValue,
} from './messages.js';
export { messageText } from './message-text.js';
export { buildHistoryUnits, isTaskAnchorCandidate } from './history-units.js';
export type { HistoryUnit } from './history-units.js';
export { checkCanonicalHistory, checkJsonValue, MAX_JSON_DEPTH, MAX_JSON_NODES } from './canonical-history-check.js';
export { isSignedAssistant, isVerbatimSigned, latestSignedIndex, SIGNING_METADATA_FIELDS } from './signed-reasoning.js';

// Adapters and trajectory importers
export { fromOpenAIChat, toOpenAIChat, toOpenAIChatDetailed } from './adapters/openai-chat.js';
export type { OpenAIChatMessage, OpenAIChatContentPart } from './adapters/openai-chat.js';
export { fromAnthropicMessages, toAnthropicMessages, toAnthropicMessagesDetailed } from './adapters/anthropic-messages.js';
export type {
  AnthropicMessage,
  AnthropicContentBlock,
  AnthropicRequestMessages,
  AnthropicDocumentBlock,
  AnthropicImageBlock,
  AnthropicTextBlock,
  AnthropicToolResultContent,
} from './adapters/anthropic-messages.js';
export { fromAiSdkMessages, toAiSdkMessages, toAiSdkMessagesDetailed } from './adapters/ai-sdk-messages.js';
export type { AiSdkModelMessage } from './adapters/ai-sdk-messages.js';
export { importSdkMessages, exportSdkMessages } from './adapters/ai-sdk-history.js';
export type { SdkMessage, SdkOrigin } from './adapters/ai-sdk-history.js';
export { asImportedImages } from './adapters/ai-sdk-images.js';
export { toPromptMessages } from './adapters/ai-sdk-prompt.js';
export type { AdapterDiagnostic } from './adapters/media.js';
export {
  fromTauBenchRun,
  fromTauBenchTranscript,
  fromSweAgentTrajectory,
  fromShareGPT,
  detectTrajectoryFormat,
  importTrajectories,
  TRAJECTORY_FORMATS,
} from './adapters/trajectories.js';
export type { TrajectoryFormat, ImportedTrajectory, TrajectoryImport, ImportTrajectoriesOptions } from './adapters/trajectories.js';
export { fromMiniSweAgentTrajectory } from './adapters/trajectories-mini-swe-agent.js';
export { fromOpenHandsEvents } from './adapters/trajectories-openhands.js';
export { fromClaudeCodeSession } from './adapters/trajectories-claude-code.js';
export { fromCodexRollout } from './adapters/trajectories-codex.js';
export { fromLlamaFactoryRecord, fromAlpacaRecord } from './adapters/trajectories-llama-factory.js';

// Token counting
export { CachingTokenEstimator, ConservativeTokenEstimator, IMAGE_TOKENS, TOOL_SCHEMA_OVERHEAD_TOKENS, estimateMediaTokens, messageOverheadTokens, toolSchemaText } from './conservative-token-estimator.js';
export { loadOptionalPeer, type OptionalPeer } from './optional-peer.js';
export { EXACT_TOKENIZER_PACKAGE, ExactTokenEstimator, exactTokenEstimatorFor, exactTokenizerInstalled, hasBuiltInExactTokenizer } from './exact-token-estimator.js';
export type { BuiltInExactFamily } from './exact-token-estimator.js';
export { tokenizerFamilyOf } from './tokenizer-family.js';
export { TOKENIZER_FAMILIES } from './token-estimator.js';
export type { PrecountRequest, TokenEstimator, TokenizerFamily, ToolSchema } from './token-estimator.js';

// Contributors
export { ContextContributorRegistry } from './contributor-registry.js';
export type { CollectOptions, CollectionResult, ContributorRunRecord, ContributorStatus, ValidatedCollection } from './contributor-registry.js';
export type {
  ContextScope,
  SectionSlot,
  SystemSection,
  ContributedMessage,
  AttachmentTrust,
  DataAttachment,
  DiagnosticSeverity,
  ContextDiagnostic,
  ContextContribution,
  ContributionRequest,
  ContextContributor,
  ContributorFactoryOptions,
  ContextContributorFactory,
} from './contributor.js';

// The turn: the assembler and its stages, in pipeline order
export { ContextAssembler } from './context-assembler.js';
export type { ContextAssemblerOptions, ContextStages, ContextStageName, ContextStageEvent, TurnRecovery, TurnRequest, AssembledTurn } from './context-assembler.js';
export { createContextAssembler, defaultContextStages, legacyModelInput } from './default-pipeline.js';
export type { CreateContextAssemblerOptions } from './default-pipeline.js';

// Context state: what decides the input between turns, as data
export { checkContextState, CONTEXT_STATE_VERSION, INITIAL_CONTEXT_STATE } from './context-state.js';
export type { ContextState, ContextStateV1, MessageMark, UsageCounts, WindowStartMark } from './context-state.js';
export { calibrateContextState, calibratedBudget, TRUNCATION_GROWTH_SHARE, TRUNCATION_MIN_GROWTH, TRUNCATION_SHARE } from './usage-calibration.js';
export type { UsageObservation } from './usage-calibration.js';

// The composition root: one pipeline for every caller
export { createContextPipeline, compactorSettings, KEEP_WHOLE_TOOLS } from './context-pipeline.js';
export type { ContextPipeline, ContextPipelineOptions } from './context-pipeline.js';
export { goalSnapshotFactory, originalRequest, GOAL_SECTION_ID } from './goal-snapshot.js';
export { applyContextBudget, SlotOrderBudgetPolicy } from './budget.js';
export type { AdmittedContext, ContextBudgetLimits, ContextBudgetPolicy, ContextBudgetRequest } from './budget.js';
export { DeterministicSystemPromptRenderer } from './system-prompt-renderer.js';
export type { RenderedSystemPrompt, SystemPromptRenderer } from './system-prompt-renderer.js';
export { ThresholdTokenPressurePolicy } from './token-pressure.js';
export type { TokenPressure, TokenPressurePolicy, TokenPressureRequest } from './token-pressure.js';
export { CACHE_PRICING, DefaultContextMessageComposer, interruptedResult } from './message-composer.js';
export type { ComposedMessages, ComposeRequest, ContextMessageComposer, MessageComposerOptions } from './message-composer.js';
export { AtomicHistoryWindowPolicy } from './history-window.js';
export { trimHistory, type TrimHistoryOptions } from './trim-history.js';
export type { HistoryWindow, HistoryWindowPolicy, HistoryWindowRequest, HistoryWindowStats } from './history-window.js';
export { DefaultContextValidator } from './context-validator.js';
export type { ContextValidationRequest, ContextValidator } from './context-validator.js';
export type { ModelInput } from './model-input.js';

// Wrappers: what Strata wraps stays inside (escaped), and the validator checks it
export { escapeWrapped, WRAPPER_TAG_NAMES } from './wrapper-markup.js';
export type { WrapperTagName } from './wrapper-markup.js';

// Compaction
export { DefaultHistoryCompactor, HISTORY_COMPACTOR_DEFAULTS } from './default-history-compactor.js';
export { backoffDelayMs, SYSTEM_TIMERS, withTimeout, type Timers } from './timers.js';
export { untilAborted } from './abort-race.js';
export { withDefaults } from './with-defaults.js';
export { BoundedCache } from './bounded-cache.js';
export type { HistoryCompactorOptions } from './default-history-compactor.js';
export type { CompactionReason, CompactionRequest, CompactionResult, CompactionTrace, CompactionTrigger, HistoryCompactor } from './history-compactor.js';
export { describeReceipt, readBackCall } from './compaction-receipts.js';
export type { CompactionReceipt, CompactionReceiptItem, CompactionReceiptLocation } from './compaction-receipts.js';
export { CHECKPOINT_INSTRUCTIONS, CHECKPOINT_SECTIONS } from './checkpoint-format.js';
export { formatToolResultPreview, MASK_PREVIEW_SHARE, PREVIEW_DEFAULTS, previewToolResult } from './tool-result-preview.js';
export type { PreviewOptions } from './tool-result-preview.js';

// Configuration and budget
export { resolveContextConfiguration, resolveContextBudget, DEFAULT_PRESSURE_PERCENT, MODEL_MAX_TOKENS, OUTPUT_RESERVE_TOKENS } from './context-configuration.js';
export type { ContextConfiguration, ContextMode, ContextBudgetOptions, ResolvedContextBudget, ResolveContextConfigurationOptions } from './context-configuration.js';

// Traces (a versioned, persisted format)
export type { ContextTraceV5, ModelCallTrace, PlanProgress } from './context-trace.js';
export { PLAN_TOOL_NAME } from './plan-progress.js';

// Ports implemented elsewhere (stores, summarizers, trace sinks) and the tool contract
export type { ToolOutputStore, StoredToolOutput, StoredToolOutputEntry, PutToolOutput, PutToolOutputStream, SessionStore, SessionAppendOptions, SessionWriteOptions, SessionState, SessionVersion, Summarizer, SummarizeRequest, TraceSink } from './ports.js';
export type { ToolDefinition, ToolExecutionContext, ToolOutcome } from './tool-definition.js';

// Credentials in error texts
export { CredentialStreamRedactor, CredentialVault, describeRedactions, mergeRedactions, redactCredentials, redactCredentialsDeep } from './redact-credentials.js';
export type { CredentialKind, CredentialRedaction, RedactedText, RedactOptions } from './redact-credentials.js';

// Errors
export { StrataError, markerCheck } from './errors/strata-error.js';
export type { StrataErrorKind } from './errors/strata-error.js';
export { ConfigurationError } from './errors/configuration-error.js';
export { ContextInputError } from './errors/context-input-error.js';
export { ContextBudgetError } from './errors/context-budget-error.js';
export { ContextValidationError } from './errors/context-validation-error.js';
export type { ContextViolation } from './errors/context-validation-error.js';

// Front matter
export { readFrontMatter, type FrontMatter, type ReadFrontMatterOptions } from './front-matter.js';
export { FrontMatterError, type FrontMatterErrorCode } from './errors/front-matter-error.js';

// Strata inside a host's own loop (the adapter packages build on it)
export { HostLoopContext, createHostLoopContext } from './host-loop-context.js';
export type { CreateHostLoopContextOptions, HostLoopContextOptions, HostLoopTurn, HostLoopTurnRequest, HostLoopUsage, ImportedMessage } from './host-loop-context.js';
export { ToolCallContexts, PendingUsage, PENDING_USAGE_CALLS } from './host-loop-runs.js';
