import type { ContextDiagnostic, TokenEstimator } from '@strata/context';
import { smallerProjection, type Projection } from './activation.js';
import { ContextWorkspaceInputError } from './errors/context-workspace-input-error.js';
import { BLOCK_SEPARATOR, buildResolvedBlock, joinBlockTexts, ResolvedMemberRecord, type DegradedBlock, type DroppedBlock, type ResolvedBlock, type TokenBudgetReport } from './resolved-context.js';
import { describe, requireInteger } from './validate.js';

export interface TokenBudget {
  /** The most tokens the result text may count. A positive integer. */
  readonly maxTokens: number;
  readonly estimator: TokenEstimator;
}

export const BLOCK_DEGRADED_CODE = 'CONTEXT_WORKSPACE_BLOCK_DEGRADED';
/** One diagnostic for all dropped elements (the full list is in the report): 6,000 drops are one fact, not 6,000. */
export const BLOCKS_DROPPED_CODE = 'CONTEXT_WORKSPACE_BLOCKS_DROPPED';
/** How many dropped elements the diagnostic names before summing up the rest. */
const DROPPED_NAMED_IN_DIAGNOSTIC = 10;

export function parseTokenBudget(value: { readonly maxTokens?: unknown; readonly estimator?: unknown }): TokenBudget | undefined {
  if (value.maxTokens === undefined && value.estimator === undefined) return undefined;
  const maxTokens = requireInteger(value.maxTokens, { field: 'maxTokens', min: 1 });
  const estimator = value.estimator as Partial<TokenEstimator> | undefined;
  if (typeof estimator !== 'object' || estimator === null || typeof estimator.countText !== 'function') {
    throw new ContextWorkspaceInputError({
      code: 'WORKSPACE_INVALID_TYPE',
      field: 'estimator',
      message: `estimator must be a TokenEstimator (with countText) when maxTokens is set, got ${describe(value.estimator)}`,
    });
  }
  return { maxTokens, estimator: estimator as TokenEstimator };
}

/**
 * Fits ranked elements into `maxTokens` without cutting text inside a block.
 * Elements are dropped from the bottom of the ranking when even their
 * smallest projections (every element at its smallest) would not fit; the
 * elements kept are then degraded, lowest-ranked first, one projection at a
 * time (full → compact → abstract, every member of an aggregate together),
 * until the text fits: the top of the ranking keeps the most detail. Only
 * the kept prefix (and one more element) is rendered and counted. The count
 * is checked on the final text, so a tokenizer that does not add up across
 * blocks still ends within the budget.
 */
export function fitToTokenBudget(options: { readonly blocks: readonly ResolvedBlock[]; readonly budget: TokenBudget }): {
  readonly blocks: readonly ResolvedBlock[];
  readonly report: TokenBudgetReport;
  readonly diagnostics: readonly ContextDiagnostic[];
} {
  const { blocks } = options;
  const { maxTokens, estimator } = options.budget;
  const count = (text: string) => estimator.countText(text);
  const separatorTokens = count(BLOCK_SEPARATOR);

  // Each kept element's projections from the activated one down, each strictly smaller in tokens.
  const ladders: { block: ResolvedBlock; tokens: number }[][] = [];
  let smallestTotal = 0;
  for (const block of blocks) {
    const ladder = [{ block, tokens: count(block.text) }];
    for (let smaller = degrade(block); smaller !== undefined; smaller = degrade(smaller)) {
      const tokens = count(smaller.text);
      if (tokens < ladder[ladder.length - 1]!.tokens) ladder.push({ block: smaller, tokens });
    }
    const cost = ladder[ladder.length - 1]!.tokens + (ladders.length > 0 ? separatorTokens : 0);
    if (smallestTotal + cost > maxTokens) break;
    smallestTotal += cost;
    ladders.push(ladder);
  }

  const steps = ladders.map(() => 0);
  let total = ladders.reduce((sum, ladder) => sum + ladder[0]!.tokens, 0) + separatorTokens * Math.max(0, ladders.length - 1);
  for (let index = ladders.length - 1; index >= 0 && total > maxTokens; index -= 1) {
    const ladder = ladders[index]!;
    while (total > maxTokens && steps[index]! < ladder.length - 1) {
      total -= ladder[steps[index]!]!.tokens - ladder[steps[index]! + 1]!.tokens;
      steps[index] = steps[index]! + 1;
    }
  }
  let kept = ladders.map((ladder, index) => ladder[steps[index]!]!.block);
  let text = joinBlockTexts(kept);
  let usedTokens = count(text);
  while (kept.length > 0 && usedTokens > maxTokens) {
    kept = kept.slice(0, -1);
    text = joinBlockTexts(kept);
    usedTokens = count(text);
  }

  const dropped: DroppedBlock[] = [];
  for (let rank = blocks.length - 1; rank >= kept.length; rank -= 1) {
    const block = blocks[rank]!;
    dropped.push({ blockName: block.blockName, source: block.source, rank });
  }
  const degraded: DegradedBlock[] = [];
  kept.forEach((block, rank) => {
    const original = blocks[rank]!;
    if (block === original) return;
    degraded.push({
      blockName: block.blockName,
      source: block.source,
      from: original.members.map((member) => member.projection),
      to: block.members.map((member) => member.projection),
    });
  });
  const diagnostics: ContextDiagnostic[] = [
    ...degraded.map((block) => ({
      code: BLOCK_DEGRADED_CODE,
      severity: 'info' as const,
      message: `${block.blockName} from ${block.source} rendered ${block.to.join(', ')} instead of ${block.from.join(', ')} to fit ${maxTokens} tokens`,
      subject: `${block.blockName}@${block.source}`,
    })),
  ];
  if (dropped.length > 0) diagnostics.push(droppedDiagnostic(dropped, maxTokens));
  return { blocks: kept, report: { maxTokens, usedTokens, degraded, dropped }, diagnostics };
}

function droppedDiagnostic(dropped: readonly DroppedBlock[], maxTokens: number): ContextDiagnostic {
  const named = dropped.slice(0, DROPPED_NAMED_IN_DIAGNOSTIC).map((block) => `${block.blockName}@${block.source}`);
  const rest = dropped.length - named.length;
  return {
    code: BLOCKS_DROPPED_CODE,
    severity: 'warning',
    message: `${dropped.length} block(s) left out to fit ${maxTokens} tokens, lowest-ranked first: ${named.join(', ')}${rest > 0 ? ` and ${rest} more` : ''}`,
  };
}

/** Every member one projection smaller; undefined when all are at their smallest. */
function degrade(block: ResolvedBlock): ResolvedBlock | undefined {
  let changed = false;
  const members = block.members.map((member) => {
    const projection = smallerProjection(member.projection);
    if (projection === undefined) return member;
    changed = true;
    const { block: memberBlock, sequence, activationScore, level, exposure, domainWeight, activatedProjection } = member;
    return new ResolvedMemberRecord(memberBlock, sequence, activationScore, level, exposure, domainWeight, activatedProjection, projection);
  });
  return changed ? buildResolvedBlock(members, block) : undefined;
}
