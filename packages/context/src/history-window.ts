import { ContextBudgetError } from './errors/context-budget-error.js';
import type { ContextDiagnostic } from './contributor.js';
import { buildHistoryUnits, isOpenUnit, isTaskAnchorCandidate, type HistoryUnit } from './history-units.js';
import type { CanonicalMessage } from './messages.js';

export interface HistoryWindowRequest {
  readonly messages: readonly CanonicalMessage[];
  readonly budgetTokens: number;
  readonly count: (message: CanonicalMessage) => number;
  /**
   * Where the previous turn's window started. While everything from there on
   * still fits, the window keeps that start, so the prompt prefix (and the
   * provider's cache) survives from turn to turn.
   */
  readonly previousStart?: CanonicalMessage;
  /** When the history must be cut, leave this many tokens free for the next turns. Default 0. */
  readonly headroomTokens?: number;
}

export interface HistoryWindowStats {
  readonly historyMessages: number;
  readonly keptMessages: number;
  readonly droppedMessages: number;
  readonly keptUnits: number;
  readonly droppedUnits: number;
  readonly usedTokens: number;
  readonly budgetTokens: number;
}

export interface HistoryWindow {
  readonly messages: readonly CanonicalMessage[];
  /** Where the kept suffix begins when units were dropped: the next turn's `previousStart`. */
  readonly start?: CanonicalMessage;
  readonly stats: HistoryWindowStats;
  readonly diagnostics: readonly ContextDiagnostic[];
}

export interface HistoryWindowPolicy {
  select(request: HistoryWindowRequest): HistoryWindow;
}

/**
 * Keeps the newest history that fits, unit by unit, newest first. Never splits a tool call
 * from its results; always keeps the leading system messages, the task anchor
 * (the latest real user request), the latest checkpoint, the newest step and
 * every open unit. When those alone do not fit, fails before any provider call.
 */
export class AtomicHistoryWindowPolicy implements HistoryWindowPolicy {
  select(request: HistoryWindowRequest): HistoryWindow {
    const units = buildHistoryUnits(request.messages);
    const costs = units.map((unit) => unit.messages.reduce((total, message) => total + request.count(message), 0));
    const pinned = pinnedUnits(units);
    let pinnedTokens = 0;
    for (const index of pinned) pinnedTokens += costs[index]!;
    if (pinnedTokens > request.budgetTokens) {
      throw new ContextBudgetError({
        code: 'CONTEXT_WINDOW_MUST_KEEP_OVER_BUDGET',
        requiredTokens: pinnedTokens,
        availableTokens: request.budgetTokens,
        message: `the messages the window must keep (task anchor, checkpoint, newest step, open tool calls: ${pinned.size} units) need ${pinnedTokens} tokens but only ${request.budgetTokens} are left for history`,
      });
    }
    const total = costs.reduce((sum, cost) => sum + cost, 0);
    let kept = new Set(pinned);
    let remaining = request.budgetTokens - pinnedTokens;
    const stable = this.stableStart(units, costs, pinned, request);
    if (total <= request.budgetTokens) {
      kept = new Set(units.map((_, index) => index));
      remaining = request.budgetTokens - total;
    } else if (stable) {
      kept = stable.kept;
      remaining = stable.remaining;
    } else {
      // A fresh cut leaves headroom, so the next turns can keep its start.
      let fill = remaining - Math.min(request.headroomTokens ?? 0, remaining);
      for (let index = units.length - 1; index >= 0; index -= 1) {
        if (kept.has(index)) continue;
        // A unit too big for what is left is skipped whole; older, smaller ones may still fit.
        if (costs[index]! > fill) continue;
        kept.add(index);
        fill -= costs[index]!;
        remaining -= costs[index]!;
      }
    }
    // Providers want the conversation to open with a user turn: bring back the
    // user message before the first kept unit when it fits, else shed the
    // unpinned units that would open the conversation otherwise.
    for (let index = 0; index < units.length; index += 1) {
      if (!kept.has(index) || units[index]!.messages[0]!.role === 'system') continue;
      if (units[index]!.messages[0]!.role === 'user' || pinned.has(index)) break;
      const opener = previousUserUnit(units, index);
      if (opener >= 0 && costs[opener]! <= remaining) {
        kept.add(opener);
        remaining -= costs[opener]!;
        break;
      }
      kept.delete(index);
      remaining += costs[index]!;
    }
    const messages: CanonicalMessage[] = [];
    let keptUnits = 0;
    for (let index = 0; index < units.length; index += 1) {
      if (!kept.has(index)) continue;
      keptUnits += 1;
      messages.push(...units[index]!.messages);
    }
    // The kept suffix begins after the newest dropped unit: the next turn keeps it from there.
    let suffix = units.length;
    while (suffix > 0 && kept.has(suffix - 1)) suffix -= 1;
    const start = suffix < units.length && suffix > 0 ? units[suffix]!.messages[0] : undefined;
    const stats: HistoryWindowStats = {
      historyMessages: request.messages.length,
      keptMessages: messages.length,
      droppedMessages: request.messages.length - messages.length,
      keptUnits,
      droppedUnits: units.length - keptUnits,
      usedTokens: request.budgetTokens - remaining,
      budgetTokens: request.budgetTokens,
    };
    const diagnostics: ContextDiagnostic[] =
      stats.droppedUnits > 0
        ? [{ code: 'CONTEXT_HISTORY_WINDOWED', severity: 'info', message: `window kept ${keptUnits} of ${units.length} history units (${messages.length} of ${request.messages.length} messages) in ${stats.usedTokens} of ${request.budgetTokens} tokens` }]
        : [];
    return { messages, stats, diagnostics, ...(start ? { start } : {}) };
  }

  /** Everything from the previous start on, plus the pinned units before it, when that still fits. */
  private stableStart(units: readonly HistoryUnit[], costs: readonly number[], pinned: ReadonlySet<number>, request: HistoryWindowRequest): { kept: Set<number>; remaining: number } | undefined {
    if (!request.previousStart) return undefined;
    const from = units.findIndex((unit) => unit.messages[0] === request.previousStart);
    if (from < 0) return undefined;
    const kept = new Set(pinned);
    for (let index = from; index < units.length; index += 1) kept.add(index);
    let used = 0;
    for (const index of kept) used += costs[index]!;
    return used <= request.budgetTokens ? { kept, remaining: request.budgetTokens - used } : undefined;
  }
}

function previousUserUnit(units: readonly HistoryUnit[], before: number): number {
  for (let index = before - 1; index >= 0; index -= 1) if (units[index]!.messages[0]!.role === 'user') return index;
  return -1;
}

function pinnedUnits(units: readonly HistoryUnit[]): Set<number> {
  const pinned = new Set<number>();
  let anchor = -1;
  let checkpoint = -1;
  units.forEach((unit, index) => {
    const first = unit.messages[0]!;
    if (first.role === 'system' && (index === 0 || pinned.has(index - 1))) pinned.add(index);
    if (isOpenUnit(unit)) pinned.add(index);
    if (isTaskAnchorCandidate(first)) anchor = index;
    if (first.role === 'user' && first.checkpoint === true) checkpoint = index;
  });
  if (anchor >= 0) pinned.add(anchor);
  if (checkpoint >= 0) pinned.add(checkpoint);
  if (units.length > 0) pinned.add(units.length - 1);
  return pinned;
}
