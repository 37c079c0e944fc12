import type { ContextDiagnostic } from '@strata/context';
import type { Exposure, Projection, ProjectionLevel } from './activation.js';
import type { ContextBlock } from './context-block.js';
import { aggregateUrgency, projectionContent, renderAggregate, renderBlockElement } from './render-block.js';
import type { TokenBudgetReport } from './token-budget.js';
import type { Urgency } from './urgency.js';

/** One registered block as a resolve activated and rendered it. */
export interface ResolvedMember {
  readonly block: ContextBlock;
  /** The block's registration number in its workspace: unique, increasing. */
  readonly sequence: number;
  /** After time fade and this resolve's activation. */
  readonly activationScore: number;
  /** The level after activation; it chose `activatedProjection`. */
  readonly level: ProjectionLevel;
  readonly exposure: Exposure;
  /** Sum of the weights of the requested domains the block focuses on. */
  readonly domainWeight: number;
  /** What exposure and level chose. */
  readonly activatedProjection: Projection;
  /** What is rendered: `activatedProjection`, or smaller when a token budget degraded it. */
  readonly projection: Projection;
}

/** One element of the result: a single block, or same-source blocks aggregated. */
export interface ResolvedBlock {
  readonly blockName: string;
  readonly source: string;
  /** A single block's rendered projection urgency; an aggregate's highest rendered urgency. */
  readonly urgency: Urgency;
  /** The first (highest-ranked) member's weight; the element sits at that member's rank. */
  readonly domainWeight: number;
  /** In rank order. More than one: rendered as an aggregate. */
  readonly members: readonly ResolvedMember[];
  /** The member rendered as `<snapshot>`: the highest score, the earlier-ranked on a tie. */
  readonly snapshotIndex: number;
  readonly text: string;
}

export interface ResolvedContext {
  /** In rank order: domain weight descending, then score descending, then block name, source. */
  readonly blocks: readonly ResolvedBlock[];
  /** The blocks' text joined by a newline; empty when no block matched. */
  readonly text: string;
  /** Present when the resolve had a token budget. */
  readonly budget?: TokenBudgetReport;
  /** What a budget degraded or dropped, as data (`CONTEXT_WORKSPACE_BLOCK_DEGRADED`, `..._DROPPED`). */
  readonly diagnostics: readonly ContextDiagnostic[];
}

export const EMPTY_RESOLVED_CONTEXT: ResolvedContext = Object.freeze({
  blocks: Object.freeze([]),
  text: '',
  diagnostics: Object.freeze([]),
});

/** Joins resolved blocks into the result text. */
export const BLOCK_SEPARATOR = '\n';

/** Builds (or rebuilds, after a degradation) one result element from its members. */
export function buildResolvedBlock(members: readonly ResolvedMember[]): ResolvedBlock {
  const first = members[0];
  if (first === undefined) throw new RangeError('a resolved block needs at least one member');
  let snapshotIndex = 0;
  members.forEach((member, index) => {
    const best = members[snapshotIndex];
    if (best !== undefined && member.activationScore > best.activationScore) snapshotIndex = index;
  });
  const single = members.length === 1;
  return {
    blockName: first.block.blockName,
    source: first.block.source,
    urgency: single ? projectionContent(first.block, first.projection).urgency : aggregateUrgency(members),
    domainWeight: first.domainWeight,
    members,
    snapshotIndex,
    text: single ? renderBlockElement(first.block, first.projection) : renderAggregate({ members, snapshotIndex }),
  };
}
