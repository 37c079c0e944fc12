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
  /** One non-protected section at most; a longer one is truncated. Absent: no limit of its own. */
  readonly sectionTokens?: number;
  /** Contributed messages per call at most; the newest win. Absent: no limit of its own. */
  readonly contributedMessages?: number;
  /** One contributed message at most; a longer one is truncated. Absent: no limit of its own. */
  readonly contributedMessageSizeTokens?: number;
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

/** Truncates each item over `limit` tokens of content to it (or drops it when less than MIN_TRUNCATED_TOKENS would be left). */
function capEach<T extends Item>(items: readonly T[], limit: number | undefined, kind: string, estimator: TokenEstimator, diagnostics: ContextDiagnostic[]): T[] {
  if (limit === undefined) return [...items];
  return items.flatMap((item) => {
    const tokens = estimator.countText(item.content);
    if (tokens <= limit) return [item];
    const truncated = limit >= MIN_TRUNCATED_TOKENS ? truncateToTokens(item.content, limit, estimator) : undefined;
    diagnostics.push({
      code: `CONTEXT_${kind.toUpperCase()}_${truncated === undefined ? 'DROPPED' : 'TRUNCATED'}`,
      severity: 'warning',
      subject: item.id,
      message: `${kind} "${item.id}" (${tokens} tokens) ${truncated === undefined ? 'dropped' : 'truncated'}: one ${kind} may use at most ${limit} tokens`,
    });
    return truncated === undefined ? [] : [{ ...item, content: truncated }];
  });
}

/**
 * Contributed messages, admitted as the seed orders them: when not all fit
 * (by count or by budget), the newest win. Newest is last in collection
 * order; the admitted ones keep that order.
 */
function admitNewestMessages(options: { messages: readonly ContributedMessage[]; limits: ContextBudgetLimits; estimator: TokenEstimator; diagnostics: ContextDiagnostic[] }): ContributedMessage[] {
  const { limits, estimator, diagnostics } = options;
  let messages = capEach(options.messages, limits.contributedMessageSizeTokens, 'message', estimator, diagnostics);
  const most = limits.contributedMessages;
  if (most !== undefined && messages.length > most) {
    for (const dropped of messages.slice(0, messages.length - most)) {
      diagnostics.push({ code: 'CONTEXT_MESSAGE_DROPPED', severity: 'warning', subject: dropped.id, message: `message "${dropped.id}" dropped: at most ${most} contributed messages are sent and newer ones win` });
    }
    messages = messages.slice(messages.length - most);
  }
  const admitted = admit({ items: [...messages].reverse(), limit: limits.contributedMessageTokens, cost: (message) => estimator.countText(message.content) + 8, kind: 'message', estimator, diagnostics });
  return admitted.reverse();
}

/**
 * Admits the validated collection into its budgets. Protected sections
 * (identity, governance, run contract) go first and are never truncated:
 * if they alone exceed the system-prompt budget, assembly fails. Other
 * sections and attachments are admitted in order; contributed messages
 * newest first (see `admitNewestMessages`).
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
    items: capEach(sections.filter((section) => !PROTECTED_SLOTS.has(section.slot)), limits.sectionTokens, 'section', estimator, diagnostics),
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
  const messages = admitNewestMessages({ messages: collection.contributions.flatMap((entry) => entry.contribution.messages ?? []), limits, estimator, diagnostics });
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
