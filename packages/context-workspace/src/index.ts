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
// Errors
export { ContextWorkspaceInputError, type ContextWorkspaceInputErrorCode } from './errors/context-workspace-input-error.js';

// Blocks
export { BUILT_IN_DOMAINS, type BuiltInDomain, type FocusedDomain } from './focused-domain.js';
export type { Urgency } from './urgency.js';
export { contextBlock, type BlockContent, type BlockContentInit, type ContextBlock, type ContextBlockInit, type SourceKey } from './context-block.js';

// The workspace
export { ContextWorkspace, type ContextWorkspaceOptions, type ResolveOptions, type WorkspaceBlockState } from './context-workspace.js';
export type { Exposure, Projection, ProjectionLevel } from './activation.js';
export type { ResolvedBlock, ResolvedContext, ResolvedMember } from './resolved-context.js';
export type { TokenBudget } from './token-budget.js';
export type { DegradedBlock, DroppedBlock, TokenBudgetReport } from './resolved-context.js';

// Traces and snapshots
export type { ContextWorkspaceTraceBlock, ContextWorkspaceTraceEvent, TraceRecorder } from './trace-recorder.js';
export type { ContextWorkspaceSnapshotBlockV1, ContextWorkspaceSnapshotV1 } from './snapshot.js';

// The turn pipeline
export { workspaceContributorFactory, type WorkspaceContributorOptions } from './workspace-contributor.js';
