import type { ContextDiagnostic, TokenEstimator } from '@strata/context';
import { smallerProjection, type Projection } from './activation.js';
import { ContextWorkspaceInputError } from './errors/context-workspace-input-error.js';
import { BLOCK_SEPARATOR, buildResolvedBlock, type ResolvedBlock } from './resolved-context.js';
import { describe, requireInteger } from './validate.js';

export interface TokenBudget {
  /** The most tokens the result text may count. A positive integer. */
  readonly maxTokens: number;
  readonly estimator: TokenEstimator;
}

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

export const BLOCK_DEGRADED_CODE = 'CONTEXT_WORKSPACE_BLOCK_DEGRADED';
export const BLOCK_DROPPED_CODE = 'CONTEXT_WORKSPACE_BLOCK_DROPPED';

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
 * Fits ranked elements into `maxTokens`. First the lowest-ranked element is
 * rendered one projection smaller at a time (full → compact → abstract, every
 * member together) until it is at its smallest, then the next lowest, and so
 * on; when every element is at its smallest and the text is still too long,
 * elements are dropped, lowest-ranked first. Text is never cut inside a block.
 * The count is checked on the final text, so a tokenizer that does not add
 * up across blocks still ends within the budget.
 */
export function fitToTokenBudget(options: { readonly blocks: readonly ResolvedBlock[]; readonly budget: TokenBudget }): {
  readonly blocks: readonly ResolvedBlock[];
  readonly report: TokenBudgetReport;
  readonly diagnostics: readonly ContextDiagnostic[];
} {
  const { maxTokens, estimator } = options.budget;
  const count = (text: string) => estimator.countText(text);
  const units = options.blocks.map((block) => ({ block, original: block, tokens: count(block.text) }));
  const separatorTokens = count(BLOCK_SEPARATOR);
  let total = units.reduce((sum, unit) => sum + unit.tokens, 0) + separatorTokens * Math.max(0, units.length - 1);

  for (let index = units.length - 1; index >= 0 && total > maxTokens; index -= 1) {
    const unit = units[index]!;
    for (let smaller = degrade(unit.block); smaller !== undefined && total > maxTokens; smaller = degrade(smaller)) {
      const tokens = count(smaller.text);
      if (tokens >= unit.tokens) continue;
      total -= unit.tokens - tokens;
      unit.block = smaller;
      unit.tokens = tokens;
    }
  }

  const dropped: DroppedBlock[] = [];
  let kept = units.length;
  const dropLast = () => {
    kept -= 1;
    const unit = units[kept]!;
    dropped.push({ blockName: unit.block.blockName, source: unit.block.source, rank: kept });
    total -= unit.tokens + (kept > 0 ? separatorTokens : 0);
  };
  while (kept > 0 && total > maxTokens) dropLast();
  let text = units.slice(0, kept).map((unit) => unit.block.text).join(BLOCK_SEPARATOR);
  let usedTokens = count(text);
  while (kept > 0 && usedTokens > maxTokens) {
    dropLast();
    text = units.slice(0, kept).map((unit) => unit.block.text).join(BLOCK_SEPARATOR);
    usedTokens = count(text);
  }

  const keptUnits = units.slice(0, kept);
  const degraded: DegradedBlock[] = keptUnits
    .filter((unit) => unit.block !== unit.original)
    .map((unit) => ({
      blockName: unit.block.blockName,
      source: unit.block.source,
      from: unit.original.members.map((member) => member.projection),
      to: unit.block.members.map((member) => member.projection),
    }));
  const diagnostics: ContextDiagnostic[] = [
    ...degraded.map((block) => ({
      code: BLOCK_DEGRADED_CODE,
      severity: 'info' as const,
      message: `${block.blockName} from ${block.source} rendered ${block.to.join(', ')} instead of ${block.from.join(', ')} to fit ${maxTokens} tokens`,
      subject: `${block.blockName}@${block.source}`,
    })),
    ...dropped.map((block) => ({
      code: BLOCK_DROPPED_CODE,
      severity: 'warning' as const,
      message: `${block.blockName} from ${block.source} (rank ${block.rank}) left out to fit ${maxTokens} tokens`,
      subject: `${block.blockName}@${block.source}`,
    })),
  ];
  return {
    blocks: keptUnits.map((unit) => unit.block),
    report: { maxTokens, usedTokens, degraded, dropped },
    diagnostics,
  };
}

/** Every member one projection smaller; undefined when all are at their smallest. */
function degrade(block: ResolvedBlock): ResolvedBlock | undefined {
  let changed = false;
  const members = block.members.map((member) => {
    const projection = smallerProjection(member.projection);
    if (projection === undefined) return member;
    changed = true;
    return { ...member, projection };
  });
  return changed ? buildResolvedBlock(members) : undefined;
}
