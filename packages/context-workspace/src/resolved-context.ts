import type { ContextDiagnostic } from '@strata/context';
import type { Exposure, Projection, ProjectionLevel } from './activation.js';
import type { ContextBlock, SourceKey } from './context-block.js';
import { aggregateUrgency, projectionContent, renderAggregate, renderBlockElement } from './render-block.js';
import type { Urgency } from './urgency.js';

/** What a token budget did to a resolve's result (see `fitToTokenBudget`): an element rendered smaller. */
export interface DegradedBlock {
  readonly blockName: string;
  readonly source: string;
  /** Each member's projection before and after, in member order. */
  readonly from: readonly Projection[];
  readonly to: readonly Projection[];
}

export interface DroppedBlock {
  readonly blockName: string;
  readonly source: string;
  /** The element's position in the unbudgeted result, 0 first. */
  readonly rank: number;
}

export interface TokenBudgetReport {
  readonly maxTokens: number;
  /** The estimator's count of the final result text. */
  readonly usedTokens: number;
  /** Kept elements rendered smaller than activation chose, in rank order. */
  readonly degraded: readonly DegradedBlock[];
  /** Elements left out, lowest-ranked first. */
  readonly dropped: readonly DroppedBlock[];
}

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

/**
 * A member made by a constructor, not an object literal: V8 moves the objects of a literal
 * it sees surviving straight to the old generation, and the 10,000 members one resolve holds
 * were enough for every later resolve's members to be allocated there, freed only by full
 * mark-compacts. Constructed objects start young. Positional, for the resolve's hot loop.
 */
export class ResolvedMemberRecord implements ResolvedMember {
  constructor(
    readonly block: ContextBlock,
    readonly sequence: number,
    readonly activationScore: number,
    readonly level: ProjectionLevel,
    readonly exposure: Exposure,
    readonly domainWeight: number,
    readonly activatedProjection: Projection,
    readonly projection: Projection,
  ) {}
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
  /** The XML element. Rendered on first read. */
  readonly text: string;
}

export interface ResolvedContext {
  /** In rank order: domain weight descending, then score descending, then block name, source. */
  readonly blocks: readonly ResolvedBlock[];
  /** The blocks' text joined by a newline; empty when no block matched. Rendered on first read. */
  readonly text: string;
  /** Present when the resolve had a token budget. */
  readonly budget?: TokenBudgetReport;
  /** What a budget degraded or dropped, as data (`CONTEXT_WORKSPACE_BLOCK_DEGRADED` per degraded element, one `CONTEXT_WORKSPACE_BLOCKS_DROPPED`). */
  readonly diagnostics: readonly ContextDiagnostic[];
}

/** Joins resolved blocks into the result text. */
export const BLOCK_SEPARATOR = '\n';

/**
 * A resolve's result. `text` is rendered on first read and kept: ranking
 * 10,000 blocks does not pay for joining a megabyte of XML nobody reads.
 */
class ResolvedContextResult implements ResolvedContext {
  readonly blocks: readonly ResolvedBlock[];
  readonly budget?: TokenBudgetReport;
  readonly diagnostics: readonly ContextDiagnostic[];
  #text: string | undefined;

  constructor(options: { blocks: readonly ResolvedBlock[]; budget?: TokenBudgetReport; diagnostics?: readonly ContextDiagnostic[] }) {
    this.blocks = options.blocks;
    if (options.budget !== undefined) this.budget = options.budget;
    this.diagnostics = options.diagnostics ?? [];
  }

  get text(): string {
    return (this.#text ??= joinBlockTexts(this.blocks));
  }
}

export function resolvedContext(options: {
  readonly blocks: readonly ResolvedBlock[];
  readonly budget?: TokenBudgetReport;
  readonly diagnostics?: readonly ContextDiagnostic[];
}): ResolvedContext {
  return new ResolvedContextResult(options);
}

export function joinBlockTexts(blocks: readonly ResolvedBlock[]): string {
  return blocks.map((block) => block.text).join(BLOCK_SEPARATOR);
}

/** One result element; `text` is rendered on first read and kept. */
class ResolvedBlockResult implements ResolvedBlock {
  readonly blockName: string;
  readonly source: string;
  readonly domainWeight: number;
  readonly members: readonly ResolvedMember[];
  readonly snapshotIndex: number;
  #urgency: Urgency | undefined;
  #text: string | undefined;

  constructor(members: readonly ResolvedMember[], first: ResolvedMember, key: SourceKey) {
    let snapshotIndex = 0;
    // A single member is the snapshot without reading its score.
    let best = members.length === 1 ? 0 : first.activationScore;
    for (let index = 1; index < members.length; index += 1) {
      const score = members[index]!.activationScore;
      if (score > best) {
        best = score;
        snapshotIndex = index;
      }
    }
    this.blockName = key.blockName;
    this.source = key.source;
    this.domainWeight = first.domainWeight;
    this.members = members;
    this.snapshotIndex = snapshotIndex;
  }

  /** Read on demand: ranking 10,000 blocks does not open every block's contents. */
  get urgency(): Urgency {
    if (this.#urgency === undefined) {
      const first = this.members[0]!;
      this.#urgency = this.members.length === 1 ? projectionContent(first.block, first.projection).urgency : aggregateUrgency(this.members);
    }
    return this.#urgency;
  }

  get text(): string {
    if (this.#text === undefined) {
      const first = this.members[0]!;
      this.#text =
        this.members.length === 1
          ? renderBlockElement(first.block, first.projection)
          : renderAggregate({ members: this.members, snapshotIndex: this.snapshotIndex });
    }
    return this.#text;
  }
}

/**
 * Builds (or rebuilds, after a degradation) one result element from its
 * members in rank order; `key` is the members' SourceKey, passed in so that
 * building thousands of elements does not open thousands of blocks to read
 * it. The `<snapshot>` is the highest score, the earlier-ranked on a tie.
 */
export function buildResolvedBlock(members: readonly ResolvedMember[], key: SourceKey): ResolvedBlock {
  const first = members[0];
  if (first === undefined) throw new RangeError('a resolved block needs at least one member');
  return new ResolvedBlockResult(members, first, key);
}
