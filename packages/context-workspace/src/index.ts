/**
 * @strata/context-workspace: domain-focused context blocks with decay.
 *
 * Modules publish `ContextBlock`s (three projections, focused domains, decay
 * factors) to a `ContextWorkspace`; a consumer resolves an ordered list of
 * domains and gets the blocks that matter, activated, ranked, aggregated by
 * source and rendered as XML, optionally within a token budget. The
 * workspace snapshots to versioned JSON, reports every change to a
 * `TraceRecorder`, and plugs into the turn pipeline of `@strata/context`
 * through `workspaceContributorFactory`.
 */
export { ContextWorkspaceInputError, type ContextWorkspaceInputErrorCode } from './errors/context-workspace-input-error.js';
export { BUILT_IN_DOMAINS, knownDomains, type BuiltInDomain, type FocusedDomain } from './focused-domain.js';
export { DEFAULT_URGENCY, URGENCIES, highestUrgency, urgencyRank, type Urgency } from './urgency.js';
export {
  contextBlock,
  type BlockContent,
  type BlockContentInit,
  type ContextBlock,
  type ContextBlockInit,
  type SourceKey,
} from './context-block.js';
export {
  ABSTRACT_TO_COMPACT_THRESHOLD,
  COMPACT_TO_FULL_THRESHOLD,
  INITIAL_ACTIVATION_SCORE,
  MAX_ACTIVATION_SCORE,
  PROJECTION_EPSILON,
  activate,
  applyReplaceFade,
  applyTimeFade,
  projectionFor,
  projectionLevel,
  smallerProjection,
  type Exposure,
  type Projection,
  type ProjectionLevel,
} from './activation.js';
export { escapeXmlAttribute, escapeXmlText, renderAggregate, renderBlockElement, type RenderMember } from './render-block.js';
export { BLOCK_SEPARATOR, type ResolvedBlock, type ResolvedContext, type ResolvedMember } from './resolved-context.js';
export {
  BLOCK_DEGRADED_CODE,
  BLOCKS_DROPPED_CODE,
  type DegradedBlock,
  type DroppedBlock,
  type TokenBudget,
  type TokenBudgetReport,
} from './token-budget.js';
export {
  CONTEXT_WORKSPACE_TRACE_EVENT,
  type ContextWorkspaceTraceBlock,
  type ContextWorkspaceTraceEvent,
  type TraceRecorder,
} from './trace-recorder.js';
export {
  CONTEXT_WORKSPACE_SNAPSHOT_FORMAT,
  type ContextWorkspaceSnapshotBlockV1,
  type ContextWorkspaceSnapshotV1,
} from './snapshot.js';
export {
  ContextWorkspace,
  type ContextWorkspaceOptions,
  type ResolveOptions,
  type WorkspaceBlockState,
} from './context-workspace.js';
export {
  WORKSPACE_ATTACHMENT_SOURCE,
  workspaceContributorFactory,
  type WorkspaceContributorOptions,
} from './workspace-contributor.js';
