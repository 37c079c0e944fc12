// Errors
export { TagError } from './errors/tag-error.js';
export { BlackboardConflictError } from './errors/blackboard-conflict-error.js';
export { WorkerSkillFormatError } from './errors/worker-skill-format-error.js';
export { SkillContractError, type SkillViolation } from './errors/skill-contract-error.js';
export { PresetFormatError } from './errors/preset-format-error.js';
export { ManifestError } from './errors/manifest-error.js';
export { ContextOrderError } from './errors/context-order-error.js';
export type { BlackboardDiagnostic, BlackboardDiagnosticCode } from './diagnostics.js';

// Tags
export { parseTagPattern, type TagPattern } from './tag-pattern.js';
export { DEFAULT_WELL_KNOWN_TAGS, type WellKnownTags } from './well-known-tags.js';

// The blackboard store
export type {
  BlackboardAuthor,
  BlackboardCommit,
  BlackboardCommitResult,
  BlackboardEntry,
  BlackboardQueryOptions,
  BlackboardReadNewestOptions,
  BlackboardReadOptions,
  BlackboardStore,
  BlackboardTagSummary,
  BlackboardWrite,
} from './blackboard-store.js';
export { validateCommit } from './validate-commit.js';
export { assertReadLimit } from './read-limit.js';
export { BlackboardIndex } from './blackboard-index.js';
export { planCommit, type CommitPlan, type PlannedWrite } from './plan-commit.js';
export { MemoryBlackboardStore, type MemoryBlackboardStoreOptions } from './memory-blackboard-store.js';

// Worker skills
export type { ContextIsolation, ContextSegment, SegmentOverride, SegmentTier, SkillVariant, WorkerSkill } from './worker-skill.js';
export { loadSkillPackage, type LoadSkillPackageOptions, type SkillPackage } from './load-skill-package.js';
export { validateSkill } from './validate-skill.js';
export { parseInstanceManifest, type ContextProfile, type InstanceManifest, type ParseInstanceManifestOptions } from './instance-manifest.js';
export { resolveWorkerContract, type ResolveWorkerContractOptions, type ResolvedSegment, type WorkerContract } from './resolve-worker-contract.js';

// Worker context assembly
export { fetchWorkerInputs, type FetchWorkerInputsOptions, type WorkerInputs } from './fetch-worker-inputs.js';
export type { ContextOrder, ContextOrderInsert } from './context-order.js';
export {
  applyContextIsolation,
  filterInputsForRolePerspective,
  type ApplyContextIsolationOptions,
  type ContextIsolationResult,
  type RolePerspectiveOptions,
} from './context-isolation.js';
export { bindPlayProjection, type BindPlayProjectionOptions, type BindPlayProjectionResult, type TagFeeds } from './bind-play-projection.js';
export type { HistoryTurn, Placement, TailLabels, WorkerContextChunk, WorkerContextTailItem } from './worker-context-chunk.js';
export { assembleWorkerContextSections, type AssembleWorkerContextOptions, type WorkerContextSections } from './worker-context-sections.js';
// The seed's single assembly point ("唯一拼接点"): the sections rendered in the flat single-pack form.
export { assembleWorkerContext, flattenWorkerContext, type FlatWorkerContext } from './worker-context.js';
export { workerContextToBags, type BagBlock, type WorkerContextBags } from './worker-context-bags.js';

// Presets and worker messages
export type { WorkerMessage } from './worker-message.js';
export type { CardMarker, Preset, PresetBag, PresetGeneration, PresetSlot } from './preset.js';
export { parsePreset } from './parse-preset.js';
export { importSillyTavernPreset, type ImportSillyTavernPresetOptions, type ImportedPreset } from './import-sillytavern-preset.js';
export { assemblePlayWorkerMessages, type AssemblePlayWorkerMessagesOptions, type PlayWorkerMessages } from './assemble-play-worker-messages.js';
export { assembleWorkerMessages, type AssembleWorkerMessagesOptions, type WorkerMessages } from './assemble-worker-messages.js';

// Running workers
export type { WorkerModel, WorkerModelRequest } from './worker-model.js';
export { createRunWorkerTool, type RunWorkerToolOptions } from './run-worker-tool.js';
export { createReadBlackboardTool, type ReadBlackboardToolOptions } from './read-blackboard-tool.js';
export { compressAfterWorker, type CompressAfterWorkerOptions } from './compress-after-worker.js';
