import { ContextBudgetError } from './errors/context-budget-error.js';
import type { ContextDiagnostic } from './contributor.js';
import { forEachUnitSpan, isTaskAnchorCandidate } from './history-units.js';
import { BoundedCache } from './bounded-cache.js';
import { sharedPrefixLength } from './shared-prefix.js';
import type { MessageMark, WindowStartMark } from './context-state.js';
import { messageFingerprint } from './message-fingerprint.js';
import type { CanonicalMessage, UserMessage } from './messages.js';
import { OUTPUT_INDEX_SHARE, outputIndexBound, outputIndexSearch, storedEntries, type OutputIndexEntry } from './output-index.js';
import { isVerbatimSigned } from './signed-reasoning.js';

export interface HistoryWindowRequest {
  readonly messages: readonly CanonicalMessage[];
  readonly budgetTokens: number;
  /** Tokens of one message. Pass the same function every turn so a kept index can reuse its counts. */
  readonly count: (message: CanonicalMessage) => number;
  /**
   * Where the previous turn's window started (its `start`). While everything
   * from there on still fits, the window keeps that start, so the prompt
   * prefix (and the provider's cache) survives from turn to turn. The mark
   * is found at its index, else at the newest unit start with its
   * fingerprint (a compaction moved it); else it is gone.
   */
  readonly previousStart?: WindowStartMark;
  /** When the history must be cut, leave this many tokens free for the next turns. Default 0. */
  readonly headroomTokens?: number;
  /**
   * The context the messages belong to. When given, a policy may keep its
   * index of the messages (units, their costs) for the next turn, so a turn
   * costs what was appended, not the whole history.
   */
  readonly contextId?: string;
  /**
   * Whether the window says where its kept suffix begins (`start`, found
   * again next turn by its messages' fingerprints). Default true; false for a
   * caller that never passes it back as `previousStart` (trimHistory), which
   * then pays no fingerprint of the kept messages.
   */
  readonly markStart?: boolean;
  /**
   * The exact tokens of one message, when the model's tokenizer is known
   * (`count` is then the fast estimate, which never counts less). A history
   * that fits by `count` is kept whole, uncounted; a cut is decided by exact
   * counts where they can change it: every unit it keeps is counted exactly,
   * and a step whose estimate runs over the room left by more than the
   * estimate has run over the exact count on this history (at most
   * `ESTIMATE_OVER_EXACT` times) is taken not to fit without being counted.
   * Pass the same function every turn, as `count`.
   */
  readonly exactCount?: (message: CanonicalMessage) => number;
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
  readonly start?: WindowStartMark;
  readonly stats: HistoryWindowStats;
  readonly diagnostics: readonly ContextDiagnostic[];
}

export interface HistoryWindowPolicy {
  select(request: HistoryWindowRequest): HistoryWindow;
}

/** Where unit `unit` starts in the indexed messages: units cover them in order, each starting where the one before ends. */
function unitStart(index: UnitIndex, unit: number): number {
  return unit === 0 ? 0 : index.ends[unit - 1]!;
}

/** The role of the unit's first message (what the window asks of a unit besides its place). */
function unitRole(index: UnitIndex, unit: number): CanonicalMessage['role'] {
  return index.messages[unitStart(index, unit)]!.role;
}

/**
 * The units of a message list with their costs and the positions the window
 * pins, kept per context while the list only grows at its end.
 */
interface UnitIndex {
  messages: readonly CanonicalMessage[];
  count: (message: CanonicalMessage) => number;
  /** The request's `exactCount`: a listing kept below is counted by it, so an index is kept only for the same one. */
  readonly exactCount: ((message: CanonicalMessage) => number) | undefined;
  /** Per unit, one past its last message: a number per unit, not an object (the units are the indexed messages in order). */
  readonly ends: number[];
  /** `prefixTokens[i]` is the cost of units `0..i-1`. */
  readonly prefixTokens: number[];
  /**
   * With an exact counter, per indexed message its estimate and its exact
   * count once a cut asked for it (-1 until then), so a history trimmed again
   * counts exactly only what no cut counted before (trimHistory keeps no
   * count per message object). Absent without an exact counter.
   */
  readonly counts: { readonly estimates: number[]; readonly exact: number[] } | undefined;
  /** Ascending unit indexes of task-anchor candidates, checkpoints and open units. */
  readonly anchors: number[];
  readonly checkpoints: number[];
  readonly openUnits: number[];
  /** Ascending unit indexes of steps whose assistant message carries signed reasoning that can go verbatim. */
  readonly signed: number[];
  /**
   * The stored results of the units a listing has reached, in order, as the index of dropped outputs lists them,
   * made once per unit: unit `u`'s are `entryList[entryStarts[u]..entryStarts[u + 1]-1]`, so a cut's entries are a
   * few slices (one per run of dropped units), not a walk of every unit. An orphan result (its call is looked for in
   * the units before it) has none there: a cut that drops one lists from the messages (`orphanUnits`, ascending).
   */
  readonly entryList: OutputIndexEntry[];
  readonly entryStarts: number[];
  readonly orphanUnits: number[];
  /**
   * The last index of dropped outputs, by the cut it was made for (the kept
   * units, ascending, of the `units` there were) and the bound it was folded
   * to (`outputIndexBound`: a budget that moves less than a step gives the
   * same listing): an unchanged cut lists the same message object, counted
   * once. Valid while no unit up to `lastDropped` changes.
   */
  listed?: { readonly kept: readonly number[]; readonly units: number; readonly lastDropped: number; readonly bound: number; readonly result: { message: UserMessage; tokens: number } | undefined };
  /** Steps of references the last listing left out: where the next listing's search starts (a guess, never a decision). */
  omittedSteps?: number;
}

/** How many contexts' unit indexes a policy keeps, the most recent ones. */
const CONTEXTS_KEPT = 256;

/**
 * Keeps the newest history that fits, unit by unit, newest first. Never splits a tool call
 * from its results; always keeps the leading system messages, the first real
 * user request (the run's original one, until compaction summarises it), the
 * task anchor (the latest real user request), the latest checkpoint, the newest step and
 * every open unit. When those alone do not fit, fails before any provider call.
 * The latest step with signed reasoning (`signed-reasoning.ts`) is kept
 * beside them whenever it fits; like every unit, it is kept or dropped whole.
 * Given a `contextId`, its index of the history is kept between turns, so a
 * turn costs the appended messages plus the window, not the whole history.
 */
export class AtomicHistoryWindowPolicy implements HistoryWindowPolicy {
  /** A cache: the same windows without it, only slower. */
  private readonly indexes = new BoundedCache<string, UnitIndex>(CONTEXTS_KEPT);

  select(request: HistoryWindowRequest): HistoryWindow {
    const index = this.indexFor(request);
    const { ends, prefixTokens } = index;
    const total = prefixTokens[ends.length]!;
    const mustKeep = pinnedUnits(index);
    let firstTurn = 0;
    while (firstTurn < ends.length && unitRole(index, firstTurn) === 'system') firstTurn += 1;
    const opensWithUser = firstTurn === ends.length || unitRole(index, firstTurn) === 'user' || mustKeep.has(firstTurn);
    // Everything fits by the estimate, so by any count: kept whole, nothing counted exactly.
    if (total <= request.budgetTokens && opensWithUser) return windowOf(request, index, null, total);
    const costs = unitCosts(index, request.exactCount);
    const { cost } = costs;
    let pinnedTokens = 0;
    for (const unit of mustKeep) pinnedTokens += cost(unit);
    if (pinnedTokens > request.budgetTokens) {
      throw new ContextBudgetError({
        code: 'CONTEXT_WINDOW_MUST_KEEP_OVER_BUDGET',
        requiredTokens: pinnedTokens,
        availableTokens: request.budgetTokens,
        message: `the messages the window must keep (first request, task anchor, checkpoint, newest step, open tool calls: ${mustKeep.size} units) need ${pinnedTokens} tokens but only ${request.budgetTokens} are left for history`,
      });
    }
    // The latest signed step is kept too, whenever it fits beside them: its provider wants it back as it was.
    const pinned = new Set(mustKeep);
    const signed = index.signed.at(-1);
    if (signed !== undefined && !pinned.has(signed) && pinnedTokens + cost(signed) <= request.budgetTokens) {
      pinned.add(signed);
      pinnedTokens += cost(signed);
    }

    // Nothing dropped without a way back: the stored results of the dropped steps are listed by reference
    // (output-index.ts), in at most OUTPUT_INDEX_SHARE of the budget. The list's bound is fixed, so the same
    // dropped steps give the same bytes every turn (the prompt prefix holds). When the list does not fit beside
    // the cut, the window is cut again leaving it room: its own size first, else its whole bound.
    const maxIndexTokens = Math.min(Math.floor(request.budgetTokens * OUTPUT_INDEX_SHARE), request.budgetTokens - pinnedTokens);
    let reserve = 0;
    for (let attempt = 0; ; attempt += 1) {
      const cut = cutWindow(index, request, pinned, mustKeep, request.budgetTokens - reserve, costs);
      const listed = droppedOutputIndex(index, cut.order, maxIndexTokens, request.exactCount ?? request.count);
      if (listed === undefined || cut.used + listed.tokens <= request.budgetTokens || attempt === 2) return windowOf(request, index, cut.order, cut.used, listed);
      reserve = attempt === 0 ? listed.tokens : maxIndexTokens;
    }
  }

  /** The unit index of the request's messages: the kept one extended, or a new one. */
  private indexFor(request: HistoryWindowRequest): UnitIndex {
    const { messages, count, contextId } = request;
    const kept = contextId === undefined ? undefined : this.indexes.get(contextId);
    let index: UnitIndex;
    if (kept && kept.count === count && kept.exactCount === request.exactCount) {
      index = kept;
      // Units stay while every message up to and including the one after them is unchanged (walked from what the composer recorded).
      // The same list again may have grown at its end (`ComposedMessages.history`): the units cover what it held then.
      const same = Math.min(sharedPrefixLength(kept.messages, messages), index.ends.at(-1) ?? 0);
      let from = index.ends.length;
      while (from > 0 && index.ends[from - 1]! >= same) from -= 1;
      truncate(index, from, same);
    } else {
      index = { messages, count, exactCount: request.exactCount, ends: [], prefixTokens: [0], counts: request.exactCount && { estimates: [], exact: [] }, anchors: [], checkpoints: [], openUnits: [], signed: [], entryList: [], entryStarts: [0], orphanUnits: [] };
    }
    index.messages = messages;
    extend(index, messages);
    if (contextId !== undefined) this.indexes.set(contextId, index);
    return index;
  }
}

/**
 * The units kept when the history must be cut to `budgetTokens`, in order,
 * and the tokens they use: the pinned ones, then everything from the
 * previous start on while that still fits, else the newest units that fit
 * with headroom left; then the conversation opened with a user turn and the
 * latest signed step with its own.
 */
function cutWindow(index: UnitIndex, request: HistoryWindowRequest, pinned: ReadonlySet<number>, mustKeep: ReadonlySet<number>, budgetTokens: number, costs: UnitCosts): { order: number[]; used: number } {
  const { prefixTokens } = index;
  const unitCount = index.ends.length;
  const { cost, mayFit } = costs;
  let pinnedTokens = 0;
  for (const unit of pinned) pinnedTokens += cost(unit);
  const total = prefixTokens[unitCount]!;
  let kept = new Set(pinned);
  let remaining = budgetTokens - pinnedTokens;
  // A previous start is kept by the index's counts (with an exact counter, the estimate, which never counts less).
  const stable = total <= budgetTokens ? undefined : stableStart(index, pinned, request.previousStart, budgetTokens);
  if (total <= budgetTokens) {
    kept = new Set(index.ends.keys());
    remaining = budgetTokens - total;
  } else if (stable) {
    kept = stable.kept;
    remaining = stable.remaining;
  } else {
    // A fresh cut leaves headroom, so the next turns can keep its start.
    let fill = remaining - Math.min(request.headroomTokens ?? 0, remaining);
    for (let unit = unitCount - 1; unit >= 0; unit -= 1) {
      if (kept.has(unit)) continue;
      // A unit too big for what is left is skipped whole; older, smaller ones may still fit.
      if (!mayFit(unit, fill)) continue;
      const tokens = cost(unit);
      if (tokens > fill) continue;
      kept.add(unit);
      fill -= tokens;
      remaining -= tokens;
    }
  }
  const order = [...kept].sort((left, right) => left - right);
  remaining = openSignedTurn(index, order, mustKeep, remaining, cost);
  // Providers want the conversation to open with a user turn: bring back the
  // user message before the first kept unit when it fits, else shed the
  // units that would open the conversation otherwise (never one it must keep).
  for (let position = 0; position < order.length; position += 1) {
    const unit = order[position]!;
    if (unitRole(index, unit) === 'system') continue;
    if (unitRole(index, unit) === 'user') break;
    const opener = previousUserUnit(index, unit);
    if (opener >= 0 && cost(opener) <= remaining) {
      order.splice(position, 0, opener);
      remaining -= cost(opener);
      break;
    }
    if (mustKeep.has(unit)) break;
    order.splice(position, 1);
    remaining += cost(unit);
    position -= 1;
  }
  return { order, used: budgetTokens - remaining };
}

/**
 * How far the conservative estimate may run over the exact count (1.19x at
 * the median of the shared histories' messages, 1.7x at most): a step
 * estimated at more than this many times the room left is taken not to fit,
 * and not counted exactly (less where the history's own messages show the
 * estimate running over by less). Only the window's use depends on it, never
 * whether the cut fits.
 */
const ESTIMATE_OVER_EXACT = 2;

/** The fewest exact tokens of a message whose estimate tells how far the estimate runs over (a few tokens either way make a short message's ratio meaningless). */
const RATIO_MIN_TOKENS = 32;

/** What a cut costs its units by, and whether a unit may fit in the room left before it is costed. */
interface UnitCosts {
  readonly cost: (unit: number) => number;
  readonly mayFit: (unit: number, room: number) => boolean;
}

/**
 * A cut's unit costs: the index's counts, or, given an exact counter, each
 * unit's exact count the first time the cut asks for it (the messages it
 * keeps, and the steps beside them that might have fitted). A unit is taken
 * not to fit, uncounted, when its estimate runs over the room left by more
 * than the estimate has run over the exact count on the units counted so far
 * (from 1, at most `ESTIMATE_OVER_EXACT`, of messages long enough for the
 * ratio to mean something).
 */
function unitCosts(index: UnitIndex, exactCount: ((message: CanonicalMessage) => number) | undefined): UnitCosts {
  const { prefixTokens } = index;
  const estimate = (unit: number) => prefixTokens[unit + 1]! - prefixTokens[unit]!;
  if (exactCount === undefined) return { cost: estimate, mayFit: () => true };
  const { estimates, exact: exactTokens } = index.counts!;
  // Which units this cut has costed: what it decides must not depend on what earlier cuts counted.
  const counted = new Map<number, number>();
  let overCount = 1;
  const cost = (unit: number): number => {
    let tokens = counted.get(unit);
    if (tokens !== undefined) return tokens;
    tokens = 0;
    for (let position = unitStart(index, unit); position < index.ends[unit]!; position += 1) {
      let exact = exactTokens[position]!;
      if (exact < 0) exactTokens[position] = exact = exactCount(index.messages[position]!);
      if (exact >= RATIO_MIN_TOKENS) overCount = Math.min(ESTIMATE_OVER_EXACT, Math.max(overCount, estimates[position]! / exact));
      tokens += exact;
    }
    counted.set(unit, tokens);
    return tokens;
  };
  return { cost, mayFit: (unit, room) => counted.has(unit) || estimate(unit) <= overCount * room };
}

/** The index of the stored outputs of the units `order` leaves out, with its tokens; undefined when there is none. */
function droppedOutputIndex(index: UnitIndex, order: readonly number[], maxTokens: number, count: (message: CanonicalMessage) => number): { message: UserMessage; tokens: number } | undefined {
  listEntries(index);
  // A history that stores no result has nothing to list, whatever the cut.
  if (index.entryList.length === 0 && index.orphanUnits.length === 0) return undefined;
  const kept = [...order].sort((left, right) => left - right);
  // The same cut as last time: the units then kept are kept again, and every unit since is kept. Costs the kept units, not the history.
  const listed = index.listed;
  const bound = outputIndexBound(maxTokens);
  if (listed && listed.bound === bound) {
    const before = kept.findIndex((unit) => unit >= listed.units);
    const keptBefore = before < 0 ? kept.length : before;
    if (kept.length - keptBefore === index.ends.length - listed.units && sameNumbers(listed.kept, kept.slice(0, keptBefore))) return listed.result;
  }
  const keptSet = new Set(kept);
  let lastDropped = index.ends.length - 1;
  while (lastDropped >= 0 && keptSet.has(lastDropped)) lastDropped -= 1;
  let entries: OutputIndexEntry[];
  if (index.orphanUnits.some((unit) => !keptSet.has(unit))) {
    const dropped: CanonicalMessage[] = [];
    for (let position = 0; position < index.ends.length; position += 1) {
      if (!keptSet.has(position)) for (let message = unitStart(index, position); message < index.ends[position]!; message += 1) dropped.push(index.messages[message]!);
    }
    entries = storedEntries(dropped);
  } else {
    // The entries of each run of dropped units between the kept ones: one slice a run.
    const runs: OutputIndexEntry[][] = [];
    let next = 0;
    for (const unit of [...kept, index.ends.length]) {
      if (unit > next) runs.push(index.entryList.slice(index.entryStarts[next]!, index.entryStarts[unit]!));
      next = unit + 1;
    }
    entries = runs.length === 1 ? runs[0]! : ([] as OutputIndexEntry[]).concat(...runs);
  }
  // Searched from where the last listing's answer was: a cut that moved a little moves it a little.
  const { message, omittedSteps } = outputIndexSearch(entries, maxTokens, count, index.omittedSteps);
  index.omittedSteps = omittedSteps ?? index.omittedSteps;
  const result = message && { message, tokens: count(message) };
  index.listed = { kept, units: index.ends.length, lastDropped, bound, result };
  return result;
}

/** Lists the stored results of the units no listing has reached yet (`UnitIndex.entryList`). */
function listEntries(index: UnitIndex): void {
  for (let unit = index.entryStarts.length - 1; unit < index.ends.length; unit += 1) {
    const start = unitStart(index, unit);
    const end = index.ends[unit]!;
    if (index.messages[start]!.role === 'tool') index.orphanUnits.push(unit);
    // Most units store nothing: their messages are not copied to be listed.
    else if (storesResults(index.messages, start, end)) for (const entry of storedEntries(index.messages.slice(start, end))) index.entryList.push(entry);
    index.entryStarts.push(index.entryList.length);
  }
}

/** Whether `messages[start..end-1]` hold a tool result with a stored output (what `storedEntries` lists). */
function storesResults(messages: readonly CanonicalMessage[], start: number, end: number): boolean {
  for (let position = start; position < end; position += 1) {
    const message = messages[position]!;
    if (message.role === 'tool' && message.outputRef !== undefined) return true;
  }
  return false;
}

function sameNumbers(left: readonly number[], right: readonly number[]): boolean {
  if (left.length !== right.length) return false;
  for (let position = 0; position < left.length; position += 1) if (left[position] !== right[position]) return false;
  return true;
}

/** Drops units `from` on; the counts of the `same` first messages (unchanged) stay, for the units they are indexed into again. */
function truncate(index: UnitIndex, from: number, same: number): void {
  if (index.listed && index.listed.lastDropped >= from) index.listed = undefined;
  if (index.counts) index.counts.estimates.length = index.counts.exact.length = Math.min(same, index.counts.estimates.length);
  index.ends.length = from;
  index.prefixTokens.length = from + 1;
  if (index.entryStarts.length > from + 1) {
    index.entryStarts.length = from + 1;
    index.entryList.length = index.entryStarts[from]!;
  }
  while (index.orphanUnits.length > 0 && index.orphanUnits.at(-1)! >= from) index.orphanUnits.pop();
  for (const list of [index.anchors, index.checkpoints, index.openUnits, index.signed]) while (list.length > 0 && list.at(-1)! >= from) list.pop();
}

/** Adds the units of `messages` after the indexed ones, with their costs and pins. */
function extend(index: UnitIndex, messages: readonly CanonicalMessage[]): void {
  forEachUnitSpan(messages, index.ends.at(-1) ?? 0, (start, end, open) => {
    const position = index.ends.length;
    const first = messages[start]!;
    index.ends.push(end);
    let tokens = 0;
    for (let message = start; message < end; message += 1) tokens += estimateAt(index, messages, message);
    index.prefixTokens.push(index.prefixTokens[position]! + tokens);
    if (isTaskAnchorCandidate(first)) index.anchors.push(position);
    if (first.role === 'user' && first.checkpoint === true) index.checkpoints.push(position);
    if (open) index.openUnits.push(position);
    if (isVerbatimSigned(first)) index.signed.push(position);
  });
}

/**
 * The estimate of `messages[position]`, positions asked in order from the
 * first one not indexed: with an exact counter, kept by position
 * (`UnitIndex.counts`), so a message that stayed is not estimated again.
 */
function estimateAt(index: UnitIndex, messages: readonly CanonicalMessage[], position: number): number {
  const { counts } = index;
  if (counts === undefined) return index.count(messages[position]!);
  if (position === counts.estimates.length) {
    counts.estimates.push(index.count(messages[position]!));
    counts.exact.push(-1);
  }
  return counts.estimates[position]!;
}

/** Leading system messages, every open unit, the first request and the task anchor, the latest checkpoint and the newest unit. */
function pinnedUnits(index: UnitIndex): Set<number> {
  const pinned = new Set<number>();
  for (let unit = 0; unit < index.ends.length && unitRole(index, unit) === 'system'; unit += 1) pinned.add(unit);
  for (const unit of index.openUnits) pinned.add(unit);
  // The first request is the run's original one while compaction has not summarised it away: kept in place, no
  // goal snapshot copies it into the system prompt (goal-snapshot.ts). The latest is the task anchor.
  if (index.anchors.length > 0) pinned.add(index.anchors[0]!).add(index.anchors.at(-1)!);
  if (index.checkpoints.length > 0) pinned.add(index.checkpoints.at(-1)!);
  if (index.ends.length > 0) pinned.add(index.ends.length - 1);
  return pinned;
}

/**
 * The latest signed step must open its own assistant turn (its provider
 * merges consecutive assistant messages, and its thinking comes first): when
 * the cut left an assistant message right before it, the user turn between
 * them comes back if it fits, else that assistant message goes (unless it
 * must be kept). Edits `order`; returns the tokens still free.
 */
function openSignedTurn(index: UnitIndex, order: number[], mustKeep: ReadonlySet<number>, remaining: number, cost: (unit: number) => number): number {
  const signed = index.signed.at(-1);
  const position = signed === undefined ? -1 : order.indexOf(signed);
  if (position <= 0) return remaining;
  const before = order[position - 1]!;
  if (index.messages[index.ends[before]! - 1]!.role !== 'assistant') return remaining;
  const between = signed! - 1;
  if (between > before && unitRole(index, between) === 'user' && cost(between) <= remaining) {
    order.splice(position, 0, between);
    return remaining - cost(between);
  }
  if (mustKeep.has(before)) return remaining;
  order.splice(position - 1, 1);
  return remaining + cost(before);
}

/**
 * Everything from the previous start on, plus the units kept before it last
 * turn and the pinned ones, when that still fits.
 */
function stableStart(index: UnitIndex, pinned: ReadonlySet<number>, previousStart: WindowStartMark | undefined, budgetTokens: number): { kept: Set<number>; remaining: number } | undefined {
  if (!previousStart) return undefined;
  const { prefixTokens } = index;
  const unitCount = index.ends.length;
  const from = markedUnit(index, previousStart);
  if (from < 0) return undefined;
  const kept = new Set(pinned);
  for (const mark of previousStart.before ?? []) {
    const unit = markedUnit(index, mark);
    if (unit >= 0) kept.add(unit);
  }
  let used = prefixTokens[unitCount]! - prefixTokens[from]!;
  for (const unit of kept) if (unit < from) used += prefixTokens[unit + 1]! - prefixTokens[unit]!;
  if (used > budgetTokens) return undefined;
  for (let unit = from; unit < unitCount; unit += 1) kept.add(unit);
  return { kept, remaining: budgetTokens - used };
}

/**
 * The window of kept units (`null`: all of them), with the index of the
 * dropped stored outputs, when there is one, just before the kept suffix:
 * where the dropped steps were, so an unchanged cut sends the same bytes.
 */
function windowOf(request: HistoryWindowRequest, index: UnitIndex, order: readonly number[] | null, usedTokens: number, listed?: { message: UserMessage; tokens: number }): HistoryWindow {
  const { ends, messages } = index;
  const unitCount = ends.length;
  const kept: CanonicalMessage[] = [];
  // The kept suffix begins after the newest dropped unit: the next turn keeps it from there.
  let suffix = unitCount;
  if (order !== null) for (let position = order.length - 1; position >= 0 && order[position] === suffix - 1; position -= 1) suffix -= 1;
  if (order === null) kept.push(...messages);
  else {
    for (const unit of order) {
      if (unit === suffix && listed) kept.push(listed.message);
      for (let message = unitStart(index, unit); message < ends[unit]!; message += 1) kept.push(messages[message]!);
    }
  }
  const keptUnits = order === null ? unitCount : order.length;
  const keptMessages = kept.length - (listed ? 1 : 0);
  const mark = (unit: number): MessageMark => ({ index: unitStart(index, unit), fingerprint: messageFingerprint(messages[unitStart(index, unit)]!) });
  const marked = request.markStart !== false && suffix < unitCount && suffix > 0;
  const before = order === null || !marked ? [] : order.filter((unit) => unit < suffix).map(mark);
  const start: WindowStartMark | undefined = marked ? { ...mark(suffix), ...(before.length > 0 ? { before } : {}) } : undefined;
  const stats: HistoryWindowStats = {
    historyMessages: messages.length,
    keptMessages,
    droppedMessages: messages.length - keptMessages,
    keptUnits,
    droppedUnits: unitCount - keptUnits,
    usedTokens: usedTokens + (listed?.tokens ?? 0),
    budgetTokens: request.budgetTokens,
  };
  const diagnostics: ContextDiagnostic[] =
    stats.droppedUnits > 0
      ? [{ code: 'CONTEXT_HISTORY_WINDOWED', severity: 'info', message: `window kept ${keptUnits} of ${unitCount} history units (${keptMessages} of ${messages.length} messages) in ${stats.usedTokens} of ${request.budgetTokens} tokens${listed ? `, the dropped stored outputs listed by reference (${listed.tokens} tokens)` : ''}` }]
      : [];
  return { messages: kept, stats, diagnostics, ...(start ? { start } : {}) };
}

/** The unit a window-start mark points at: the one starting at its index with its fingerprint, else the newest unit start with it; -1 when none. */
function markedUnit(index: UnitIndex, mark: MessageMark): number {
  const starts = (unit: number) => messageFingerprint(index.messages[unitStart(index, unit)]!) === mark.fingerprint;
  const at = unitStartingAt(index, mark.index);
  if (at >= 0 && starts(at)) return at;
  for (let unit = index.ends.length - 1; unit >= 0; unit -= 1) if (unit !== at && starts(unit)) return unit;
  return -1;
}

/** The unit whose first message is at `position` (binary search: units are in order), or -1. */
function unitStartingAt(index: UnitIndex, position: number): number {
  let low = 0;
  let high = index.ends.length - 1;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    const start = unitStart(index, middle);
    if (start === position) return middle;
    if (start < position) low = middle + 1;
    else high = middle - 1;
  }
  return -1;
}

function previousUserUnit(index: UnitIndex, before: number): number {
  for (let unit = before - 1; unit >= 0; unit -= 1) if (unitRole(index, unit) === 'user') return unit;
  return -1;
}
