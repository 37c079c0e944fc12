import { ContextBudgetError } from './errors/context-budget-error.js';
import { PROTECTED_SLOTS, type ContextDiagnostic, type ContributedMessage, type DataAttachment, type SectionSlot, type SystemSection } from './contributor.js';
import type { ValidatedCollection } from './contributor-registry.js';
import type { TokenEstimator } from './token-estimator.js';
import { truncateToTokens } from './truncate-to-tokens.js';

/** Render and admission order of slots: authority first. */
export const SLOT_ORDER: readonly SectionSlot[] = ['identity', 'governance', 'run_contract', 'capabilities', 'skills', 'state', 'guidance'];

export interface ContextBudgetLimits {
  readonly systemPromptTokens: number;
  readonly attachmentTokens: number;
  readonly contributedMessageTokens: number;
}

export interface AdmittedContext {
  /** In render order. */
  readonly sections: readonly SystemSection[];
  readonly attachments: readonly DataAttachment[];
  readonly messages: readonly ContributedMessage[];
  readonly diagnostics: readonly ContextDiagnostic[];
}

/** Below this many tokens of room a section is dropped rather than truncated. */
export const MIN_TRUNCATED_TOKENS = 32;

export function compareSections(left: SystemSection, right: SystemSection): number {
  return (
    SLOT_ORDER.indexOf(left.slot) - SLOT_ORDER.indexOf(right.slot) ||
    (left.order ?? 0) - (right.order ?? 0) ||
    (left.id < right.id ? -1 : left.id > right.id ? 1 : 0)
  );
}

/** Cost of a section as the renderer frames it. */
export function sectionTokens(section: SystemSection, estimator: TokenEstimator): number {
  return estimator.countText(section.content) + estimator.countText(section.title ?? '') + 8;
}

interface Item {
  readonly id: string;
  readonly content: string;
}

/** Admits items in order into `limit` tokens, truncating the first that overflows when room is left. */
function admit<T extends Item>(options: {
  items: readonly T[];
  limit: number;
  cost: (item: T) => number;
  kind: string;
  estimator: TokenEstimator;
  diagnostics: ContextDiagnostic[];
}): T[] {
  const admitted: T[] = [];
  let remaining = options.limit;
  for (const item of options.items) {
    const cost = options.cost(item);
    if (cost <= remaining) {
      admitted.push(item);
      remaining -= cost;
      continue;
    }
    const overhead = cost - options.estimator.countText(item.content);
    const room = remaining - overhead;
    const truncated = room >= MIN_TRUNCATED_TOKENS ? truncateToTokens(item.content, room, options.estimator) : undefined;
    if (truncated !== undefined) {
      const shortened = { ...item, content: truncated };
      admitted.push(shortened);
      remaining -= options.cost(shortened);
      options.diagnostics.push({
        code: `CONTEXT_${options.kind.toUpperCase()}_TRUNCATED`,
        severity: 'warning',
        subject: item.id,
        message: `${options.kind} "${item.id}" truncated from ${cost} to ${options.cost(shortened)} tokens to fit its budget of ${options.limit}`,
      });
    } else {
      options.diagnostics.push({
        code: `CONTEXT_${options.kind.toUpperCase()}_DROPPED`,
        severity: 'warning',
        subject: item.id,
        message: `${options.kind} "${item.id}" (${cost} tokens) dropped: ${Math.max(0, remaining)} of ${options.limit} budget tokens left`,
      });
    }
  }
  return admitted;
}

/**
 * Admits the validated collection into its budgets. Protected sections
 * (identity, governance, run contract) go first and are never truncated:
 * if they alone exceed the system-prompt budget, assembly fails.
 */
export function applyContextBudget(options: ContextBudgetRequest): AdmittedContext {
  const { collection, limits, estimator } = options;
  const diagnostics: ContextDiagnostic[] = [];
  const sections = collection.contributions.flatMap((entry) => entry.contribution.sections ?? []).sort(compareSections);
  const protectedSections = sections.filter((section) => PROTECTED_SLOTS.has(section.slot));
  const protectedTokens = protectedSections.reduce((total, section) => total + sectionTokens(section, estimator), 0);
  if (protectedTokens > limits.systemPromptTokens) {
    throw new ContextBudgetError({
      code: 'CONTEXT_PROTECTED_OVER_BUDGET',
      requiredTokens: protectedTokens,
      availableTokens: limits.systemPromptTokens,
      message: `protected sections (${protectedSections.map((section) => section.id).join(', ')}) need ${protectedTokens} tokens but the system-prompt budget is ${limits.systemPromptTokens}; authority is never truncated`,
    });
  }
  const others = admit({
    items: sections.filter((section) => !PROTECTED_SLOTS.has(section.slot)),
    limit: limits.systemPromptTokens - protectedTokens,
    cost: (section) => sectionTokens(section, estimator),
    kind: 'section',
    estimator,
    diagnostics,
  });
  const attachments = admit({
    items: collection.contributions.flatMap((entry) => entry.contribution.attachments ?? []),
    limit: limits.attachmentTokens,
    cost: (attachment) => estimator.countText(attachment.content) + estimator.countText(attachment.source) + 16,
    kind: 'attachment',
    estimator,
    diagnostics,
  });
  const messages = admit({
    items: collection.contributions.flatMap((entry) => entry.contribution.messages ?? []),
    limit: limits.contributedMessageTokens,
    cost: (message) => estimator.countText(message.content) + 8,
    kind: 'message',
    estimator,
    diagnostics,
  });
  return { sections: [...protectedSections, ...others].sort(compareSections), attachments, messages, diagnostics };
}

export interface ContextBudgetRequest {
  readonly collection: ValidatedCollection;
  readonly limits: ContextBudgetLimits;
  readonly estimator: TokenEstimator;
}

/** The budget stage: admits the turn's sections, attachments and contributed messages into their limits. */
export interface ContextBudgetPolicy {
  admit(request: ContextBudgetRequest): AdmittedContext;
}

/** Admission in slot order, authority first (`applyContextBudget`). */
export class SlotOrderBudgetPolicy implements ContextBudgetPolicy {
  admit(request: ContextBudgetRequest): AdmittedContext {
    return applyContextBudget(request);
  }
}
