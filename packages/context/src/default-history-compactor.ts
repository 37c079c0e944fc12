import { BoundedCache } from './bounded-cache.js';
import { CHECKPOINT_INSTRUCTIONS, checkpointMessage, normalizeCheckpoint } from './checkpoint-format.js';
import { OUTPUT_INDEX_SHARE, storedOutputsSection } from './output-index.js';
import { buildHistoryUnits, isOpenUnit, isTaskAnchorCandidate, type HistoryUnit } from './history-units.js';
import { EMPTY_COMPACTION_TRACE, type CompactionRequest, type CompactionResult, type CompactionTrace, type HistoryCompactor } from './history-compactor.js';
import { CompactionIndex } from './compaction-index.js';
import { recordSharedPrefix, roomyCopy } from './shared-prefix.js';
import { maskedReceipt, reindexed, summarizedReceipt, type CompactionReceipt } from './compaction-receipts.js';
import { messageFingerprint } from './message-fingerprint.js';
import type { CanonicalHistory, CanonicalMessage, ToolOutputRef, ToolResultMessage } from './messages.js';
import type { Summarizer } from './ports.js';
import { isVerbatimSigned } from './signed-reasoning.js';
import type { TokenEstimator } from './token-estimator.js';
import { MASK_PREVIEW_SHARE, PREVIEW_DEFAULTS, previewToolResult, type PreviewOptions } from './tool-result-preview.js';
import { ConfigurationError } from './errors/configuration-error.js';
import { TimeLimitExceeded, withTimeout, type Timers } from './timers.js';
import { withDefaults } from './with-defaults.js';

export interface HistoryCompactorOptions {
  readonly summarizer?: Summarizer;
  /** Compatibility trigger: compact when the history holds more messages than this. */
  readonly messageCountThreshold?: number;
  /** Compatibility trigger: compact when the history holds more model steps (assistant messages) than this. */
  readonly roundCountThreshold?: number;
  /** Summary attempts before the projection stands. Default 2. */
  readonly summaryAttempts?: number;
  /** Default: 120,000 ms per summary attempt. */
  readonly summaryTimeoutMs?: number;
  /** Runs the summary timeout; injectable so tests control time. Default: the process's timers. */
  readonly timers?: Timers;
  readonly preview?: PreviewOptions;
  /** Share of the target kept verbatim as the recent suffix. Default 0.3. */
  readonly recentShare?: number;
  /**
   * Share of the target freed beyond the need, so one compaction lasts
   * several turns and the prompt prefix stays cacheable. Default 0.5.
   */
  readonly headroomShare?: number;
  /**
   * Under pressure, a stored body is projected only where its preview is at
   * most this share of its tokens: projecting an old message writes every
   * message after it to the prompt cache again, which a small saving does not
   * pay for. Passes not triggered by token pressure (overflow recovery, the
   * message-count trigger) project every body. Default
   * `MASK_PREVIEW_SHARE`; 1 projects every body with a smaller preview.
   */
  readonly maxPreviewShare?: number;
}

/** The compactor's defaults, merged once with its options (`withDefaults`). */
export const HISTORY_COMPACTOR_DEFAULTS: Readonly<{ summaryAttempts: number; summaryTimeoutMs: number; recentShare: number; headroomShare: number; maxPreviewShare: number }> = Object.freeze({
  summaryAttempts: 2,
  summaryTimeoutMs: 120_000,
  recentShare: 0.3,
  headroomShare: 0.5,
  maxPreviewShare: MASK_PREVIEW_SHARE,
});

/** How many contexts' compaction indexes a compactor keeps, the most recent ones. */
const CONTEXTS_KEPT = 256;

/** Model steps: assistant messages. */
function roundsOf(messages: readonly CanonicalMessage[]): number {
  return messages.filter((message) => message.role === 'assistant').length;
}

function sumTokens(messages: readonly CanonicalMessage[], estimator: TokenEstimator): number {
  let total = 0;
  for (const message of messages) total += estimator.countMessage(message);
  return total;
}

/**
 * First a deterministic projection: old stored tool-result bodies become a
 * head/tail preview plus their `read_tool_output` reference. While pressure
 * remains, the summarizer turns the oldest finished steps into a resident
 * checkpoint, keeping a recent suffix chosen by token cost. Never touches
 * open units or the latest step with signed reasoning; removes an older
 * signed step only whole, never edits an assistant message; never replaces
 * history with a bigger summary; never mutates its input.
 */
export class DefaultHistoryCompactor implements HistoryCompactor {
  private readonly options: HistoryCompactorOptions & typeof HISTORY_COMPACTOR_DEFAULTS;
  /** Each context's index for passes under pressure (bounded: the most recent contexts); a cache, never a decision. */
  private readonly indexes = new BoundedCache<string, CompactionIndex>(CONTEXTS_KEPT);

  constructor(options: HistoryCompactorOptions = {}) {
    this.options = withDefaults(HISTORY_COMPACTOR_DEFAULTS, options);
    const share = this.options.maxPreviewShare;
    if (!(typeof share === 'number' && share > 0 && share <= 1)) {
      throw new ConfigurationError({ setting: 'maxPreviewShare', message: `DefaultHistoryCompactor maxPreviewShare must be a number above 0 and at most 1, got ${String(share)}` });
    }
  }

  exceedsMessageCount(history: CanonicalHistory): boolean {
    const { messageCountThreshold, roundCountThreshold } = this.options;
    if (messageCountThreshold !== undefined && history.length > messageCountThreshold) return true;
    return roundCountThreshold !== undefined && roundsOf(history) > roundCountThreshold;
  }

  async compact(request: CompactionRequest): Promise<CompactionResult> {
    const { estimator } = request;
    const goal = Math.floor(request.targetHistoryTokens * (1 - this.options.headroomShare));
    const forced = request.reason !== 'token-pressure';
    // Under pressure, the context's index: a pass visits only the results it has not settled (compaction-index.ts).
    // Forced passes project what pressure would not, so they walk the whole history.
    let index = forced ? undefined : this.indexFor(request);
    const before = index ? index.tokens() : sumTokens(request.history, estimator);
    let protectedUnits: Set<number> | undefined;
    const protectedOf = () => (protectedUnits ??= this.protectedUnits(buildHistoryUnits(request.history), request));

    // 1. Deterministic projection of old stored bodies, oldest first.
    // Every old body at once, not just enough for the goal: one prefix change frees room for many turns.
    const old = index
      ? this.projectIndexed(index, { current: before, goal: -1, eligible: this.unprotectedUnits(index, request) })
      : this.project({ history: request.history, estimator, current: before, goal: -1, forced, eligible: (unit, unitIndex) => !protectedOf().has(unitIndex) && !isOpenUnit(unit) });
    let history = old.history;
    let current = old.current;
    const compactedOutputRefs = [...old.refs];
    const receipts: CompactionReceipt[] = [...old.receipts];
    let trace: CompactionTrace = { ...EMPTY_COMPACTION_TRACE, reason: request.reason };

    /** Set once a checkpoint rewrote the history: each carried message's place in the request's history. */
    let origin: Map<CanonicalMessage, number> | undefined;
    // 2. Summarize the oldest finished steps while pressure remains.
    const needsSummary = request.reason === 'message-count' ? this.exceedsMessageCount(history) : current > goal;
    if (needsSummary && this.options.summarizer) {
      const summarized = await this.summarize(history, request, protectedOf());
      trace = { ...trace, ...summarized.trace };
      receipts.push(...summarized.receipts);
      if (summarized.history) {
        // Receipts name places in the request's history; a checkpoint moves what follows it.
        const summarizedFrom = history;
        origin = new Map(summarizedFrom.map((message, position) => [message, position]));
        history = summarized.history;
        current = sumTokens(history, estimator);
        // A checkpoint rewrites the history: the next pass indexes it afresh.
        this.indexes.delete(request.contextId);
        index = undefined;
      }
    }

    // 3. Then the recent suffix, but the model keeps reading its newest step
    // whole unless that alone does not fit (or the pass is forced). Never an open unit.
    const limit = request.reason === 'forced' ? goal : request.limitHistoryTokens ?? request.targetHistoryTokens;
    for (const [stepGoal, newest] of [[goal, false], [limit, true]] as const) {
      if (current <= stepGoal) continue;
      let recent: Projected;
      if (index) {
        const { units } = index;
        recent = this.projectIndexed(index, { current, goal: stepGoal, eligible: (unit) => !units[unit]!.open && (newest || unit < units.length - 1) });
      } else {
        const newestStart = buildHistoryUnits(history).at(-1)?.start ?? 0;
        recent = this.project({ history, estimator, current, goal: stepGoal, forced, eligible: (unit) => !isOpenUnit(unit) && (newest || unit.start < newestStart) });
      }
      const from = history;
      history = recent.history;
      current = recent.current;
      compactedOutputRefs.push(...recent.refs);
      receipts.push(...(origin ? recent.receipts.map((receipt) => reindexed(receipt, origin!.get(from[receipt.item.index]!) ?? receipt.item.index)) : recent.receipts));
    }
    const changed = history !== request.history;
    // `current` is the count of `history`: every step above added exactly what it changed.
    return { history, changed, trace: { ...trace, estimatedTokensBefore: before, estimatedTokensAfter: current, compactedOutputRefs, receipts } };
  }

  /** The context's index under this counter, brought to the request's history. */
  private indexFor(request: CompactionRequest): CompactionIndex {
    let index = this.indexes.get(request.contextId);
    if (!index || index.counter !== request.estimator) this.indexes.set(request.contextId, (index = new CompactionIndex(request.estimator)));
    index.sync(request.history);
    return index;
  }

  /**
   * Units a pass under pressure may project, by index: not open, not the
   * latest signed step, not in the recent suffix (as `protectedUnits` counts
   * it for a token-pressure pass; leading system messages hold no results).
   */
  private unprotectedUnits(index: CompactionIndex, request: CompactionRequest): (unit: number) => boolean {
    const last = index.units.length - 1;
    const tokenBudget = request.targetHistoryTokens * this.options.recentShare;
    let suffixStart = last + 1;
    let recentTokens = 0;
    for (let unit = last; unit >= 0; unit -= 1) {
      const cost = index.unitTokens(unit);
      if (unit < last && recentTokens + cost > tokenBudget) break;
      suffixStart = unit;
      recentTokens += cost;
    }
    const signed = index.latestSigned();
    return (unit) => unit < suffixStart && unit !== signed && !index.units[unit]!.open;
  }

  /**
   * `project` for a pass under pressure over the context's index: the
   * unsettled results of eligible units, oldest first, until `current` is at
   * most `goal` (checked before each unit, as `project` does). A result it
   * visits is settled; the index follows the projected history.
   */
  private projectIndexed(index: CompactionIndex, options: { current: number; goal: number; eligible: (unit: number) => boolean }): Projected {
    const { history, counter } = index;
    let projected: CanonicalMessage[] | undefined;
    const refs: ToolOutputRef[] = [];
    const receipts: CompactionReceipt[] = [];
    const replaced: number[] = [];
    const pending: number[] = [];
    let current = options.current;
    let unit = -1;
    let next = 0;
    for (; next < index.pending.length; next += 1) {
      const position = index.pending[next]!;
      const at = index.unitAt(position);
      // At the goal, checked before each unit: the pass stops, what it did not visit stays unsettled as it was.
      if (at !== unit && current <= options.goal) break;
      unit = at;
      if (!options.eligible(unit)) {
        pending.push(position);
        continue;
      }
      const message = history[position] as ToolResultMessage;
      const preview = previewToolResult(message, this.options.preview ?? PREVIEW_DEFAULTS);
      if (!preview) continue;
      const previewTokens = counter.countMessage(preview);
      const bodyTokens = counter.countMessage(message);
      if (previewTokens > bodyTokens * this.options.maxPreviewShare) continue;
      // With room to grow: the assembler keeps the compacted list and appends the next turns to it.
      (projected ??= roomyCopy(history))[position] = preview;
      replaced.push(position);
      current += previewTokens - bodyTokens;
      refs.push(message.outputRef!);
      receipts.push(maskedReceipt(message, position, bodyTokens, previewTokens));
    }
    for (; next < index.pending.length; next += 1) pending.push(index.pending[next]!);
    if (projected) recordSharedPrefix(history, projected, replaced[0]!);
    index.replace(projected ?? history, replaced, pending);
    return { history: projected ?? history, current, refs, receipts };
  }

  /**
   * Replaces stored bodies in eligible units by previews, oldest first, until
   * `current` is at most `goal`; unless `forced`, only previews of at most
   * `maxPreviewShare` of their body's tokens.
   */
  private project(options: {
    history: CanonicalHistory;
    estimator: TokenEstimator;
    current: number;
    goal: number;
    forced: boolean;
    eligible: (unit: HistoryUnit, index: number) => boolean;
  }): Projected {
    const units = buildHistoryUnits(options.history);
    // Copied at the first body it projects: a pass that projects nothing copies nothing.
    let projected: CanonicalMessage[] | undefined;
    const refs: ToolOutputRef[] = [];
    const receipts: CompactionReceipt[] = [];
    let current = options.current;
    let firstProjected = options.history.length;
    for (let unitIndex = 0; unitIndex < units.length && current > options.goal; unitIndex += 1) {
      const unit = units[unitIndex]!;
      if (!options.eligible(unit, unitIndex)) continue;
      unit.messages.forEach((message, offset) => {
        if (message.role !== 'tool') return;
        const preview = previewToolResult(message, this.options.preview ?? PREVIEW_DEFAULTS);
        if (!preview) return;
        const previewTokens = options.estimator.countMessage(preview);
        const bodyTokens = options.estimator.countMessage(message);
        if (!options.forced && previewTokens > bodyTokens * this.options.maxPreviewShare) return;
        (projected ??= options.history.slice())[unit.start + offset] = preview;
        firstProjected = Math.min(firstProjected, unit.start + offset);
        current += previewTokens - bodyTokens;
        refs.push(message.outputRef!);
        receipts.push(maskedReceipt(message, unit.start + offset, bodyTokens, previewTokens));
      });
    }
    if (projected === undefined) return { history: options.history, current, refs, receipts };
    recordSharedPrefix(options.history, projected, firstProjected);
    return { history: projected, current, refs, receipts };
  }

  /**
   * Units never projected or summarized: leading system messages, open units,
   * the latest step with signed reasoning (`signed-reasoning.ts`: its
   * provider wants it back as it was; older ones may be summarized, whole),
   * the newest step and the recent suffix. The suffix is bounded by tokens
   * and, when the trigger is the message count, also by messages (the
   * recent share of the threshold), so it never covers a history of short messages whole.
   */
  private protectedUnits(units: readonly HistoryUnit[], request: CompactionRequest): Set<number> {
    const kept = new Set<number>();
    units.forEach((unit, index) => {
      if (isOpenUnit(unit)) kept.add(index);
      if (unit.messages[0]!.role === 'system' && (index === 0 || kept.has(index - 1))) kept.add(index);
    });
    const signed = latestSignedUnit(units);
    if (signed >= 0) kept.add(signed);
    let recentTokens = 0;
    let recentMessages = 0;
    const tokenBudget = request.targetHistoryTokens * this.options.recentShare;
    const threshold = this.options.messageCountThreshold;
    const messageBudget = request.reason === 'message-count' && threshold !== undefined ? Math.floor(threshold * this.options.recentShare) : Number.POSITIVE_INFINITY;
    const rounds = this.options.roundCountThreshold;
    const roundBudget = request.reason === 'message-count' && rounds !== undefined ? Math.floor(rounds * this.options.recentShare) : Number.POSITIVE_INFINITY;
    let recentRounds = 0;
    for (let index = units.length - 1; index >= 0; index -= 1) {
      const messages = units[index]!.messages;
      const cost = sumTokens(messages, request.estimator);
      if (index < units.length - 1 && (recentTokens + cost > tokenBudget || recentMessages + messages.length > messageBudget || recentRounds + roundsOf(messages) > roundBudget)) break;
      kept.add(index);
      recentTokens += cost;
      recentMessages += messages.length;
      recentRounds += roundsOf(messages);
    }
    return kept;
  }

  private async summarize(
    history: CanonicalHistory,
    request: CompactionRequest,
    protectedUnits: ReadonlySet<number>,
  ): Promise<{ history?: CanonicalHistory; trace: Partial<CompactionTrace>; receipts: CompactionReceipt[] }> {
    const units = buildHistoryUnits(history);
    // The prefix ends where the protected recent suffix begins.
    let boundary = units.length;
    while (boundary > 0 && protectedUnits.has(boundary - 1) && !isLeadingSystem(units, boundary - 1)) boundary -= 1;
    const anchorUnit = units.findLastIndex((unit) => isTaskAnchorCandidate(unit.messages[0]!));
    // The latest signed step stays where it was; older ones go into the summary whole.
    const signedUnit = latestSignedUnit(units);
    const source: CanonicalMessage[] = [];
    /** Each source message's place in `history`. */
    const sourceIndexes: number[] = [];
    const keptFromPrefix: CanonicalMessage[] = [];
    const leading: CanonicalMessage[] = [];
    units.slice(0, boundary).forEach((unit, index) => {
      if (isLeadingSystem(units, index)) leading.push(...unit.messages);
      else if (isOpenUnit(unit) || index === signedUnit || index === anchorUnit) keptFromPrefix.push(...unit.messages);
      else {
        source.push(...unit.messages);
        unit.messages.forEach((_, offset) => sourceIndexes.push(unit.start + offset));
      }
    });
    if (source.length === 0) return { trace: {}, receipts: [] };
    const sourceTokens = sumTokens(source, request.estimator);
    const knownRefs = new Set(source.flatMap((message) => (message.role === 'tool' && message.outputRef ? [message.outputRef.id] : [])));
    const rejections: Array<{ attempt: number; reason: string }> = [];
    const base = { summarySourceTokens: sourceTokens, summarySourceMessages: source.length };
    for (let attempt = 1; attempt <= this.options.summaryAttempts; attempt += 1) {
      let text: string;
      try {
        text = await this.callSummarizer(source, request.signal);
      } catch (error) {
        request.signal.throwIfAborted();
        rejections.push({ attempt, reason: `summarizer failed: ${error instanceof Error ? error.message : String(error)}` });
        continue;
      }
      const normalized = normalizeCheckpoint(text, { knownRefs });
      // Nothing summarised without a way back: the summarised steps' stored results, listed by the compactor.
      const outputs = storedOutputsSection(source, Math.floor((request.limitHistoryTokens ?? request.targetHistoryTokens) * OUTPUT_INDEX_SHARE), (message) => request.estimator.countMessage(message));
      const checkpoint = checkpointMessage(outputs === '' ? normalized.text : `${normalized.text}\n\n${outputs}`, normalized.diagnostics);
      const checkpointTokens = request.estimator.countMessage(checkpoint);
      if (checkpointTokens >= sourceTokens) {
        rejections.push({ attempt, reason: `checkpoint (${checkpointTokens} tokens) is not smaller than its source (${sourceTokens} tokens)` });
        continue;
      }
      const compacted = [...leading, checkpoint, ...keptFromPrefix, ...units.slice(boundary).flatMap((unit) => unit.messages)];
      const checkpointId = messageFingerprint(checkpoint);
      const receipts = source.map((message, at) => summarizedReceipt(message, sourceIndexes[at]!, request.estimator.countMessage(message), checkpointId));
      return { history: compacted, trace: { ...base, checkpointTokens, summaryAttempts: attempt, summaryRejections: rejections, summarizedMessages: source.length }, receipts };
    }
    return { trace: { ...base, summaryAttempts: this.options.summaryAttempts, summaryRejections: rejections }, receipts: [] };
  }

  private async callSummarizer(source: readonly CanonicalMessage[], runSignal: AbortSignal): Promise<string> {
    const limitMs = this.options.summaryTimeoutMs;
    try {
      return await withTimeout({
        run: (signal) => this.options.summarizer!.summarize({ transcript: source, instructions: CHECKPOINT_INSTRUCTIONS, signal }),
        limitMs,
        signal: runSignal,
        timers: this.options.timers,
      });
    } catch (error) {
      throw error instanceof TimeLimitExceeded ? new Error(`no checkpoint within ${limitMs} ms`) : error;
    }
  }
}

/** A projection pass: the history, its count, and what it stored. */
interface Projected {
  readonly history: CanonicalHistory;
  readonly current: number;
  readonly refs: ToolOutputRef[];
  readonly receipts: CompactionReceipt[];
}

function isLeadingSystem(units: readonly HistoryUnit[], index: number): boolean {
  for (let cursor = 0; cursor <= index; cursor += 1) if (units[cursor]!.messages[0]!.role !== 'system') return false;
  return true;
}

/** The unit of the latest assistant message with signed reasoning that can go verbatim (`signed-reasoning.ts`), or -1. */
function latestSignedUnit(units: readonly HistoryUnit[]): number {
  return units.findLastIndex((unit) => isVerbatimSigned(unit.messages[0]!));
}
