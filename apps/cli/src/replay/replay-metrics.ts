// What a replay measures, per run and per policy, without a model.
import { CACHE_PRICING, isTaskAnchorCandidate, messageText, toOpenAIChat, type CanonicalHistory, type CanonicalMessage, type TokenEstimator } from '@strata/context';
import type { PolicyTurn } from './policy-turns.js';


/** Sums over turns (and runs); shares are computed from these at the end. */
export interface PolicyTally {
  runs: number;
  failedRuns: number;
  turns: number;
  inputTokens: number;
  cachedTokens: number;
  cacheWriteTokens: number;
  newTokens: number;
  compactions: number;
  /** Turns whose request is over the window (by the report's counter). */
  overWindow: number;
  orphans: number;
  splitUnits: number;
  anchorTurns: number;
  anchorKept: number;
  goalTurns: number;
  goalKept: number;
  masked: number;
  recovered: number;
  /** Later-use recall (later-use-recall.ts), summed over turns. */
  needed: number;
  visible: number;
  byReference: number;
  missed: number;
  /** Null when the provider-rules oracle is not available. */
  oracleViolations: number | null;
  assemblyMs: number[];
}

export function emptyTally(oracle: boolean): PolicyTally {
  return { runs: 0, failedRuns: 0, turns: 0, inputTokens: 0, cachedTokens: 0, cacheWriteTokens: 0, newTokens: 0, compactions: 0, overWindow: 0, orphans: 0, splitUnits: 0, anchorTurns: 0, anchorKept: 0, goalTurns: 0, goalKept: 0, masked: 0, recovered: 0, needed: 0, visible: 0, byReference: 0, missed: 0, oracleViolations: oracle ? 0 : null, assemblyMs: [] };
}

export function addTally(into: PolicyTally, part: PolicyTally): void {
  for (const key of Object.keys(into) as Array<keyof PolicyTally>) {
    if (key === 'assemblyMs') into.assemblyMs.push(...part.assemblyMs);
    else if (key === 'oracleViolations') into.oracleViolations = into.oracleViolations === null || part.oracleViolations === null ? null : into.oracleViolations + part.oracleViolations;
    else (into[key] as number) += part[key] as number;
  }
}

/** Counts each message once per counter (requests repeat most of their messages). */
export class MessageTokens {
  private readonly counts = new WeakMap<CanonicalMessage, number>();
  private readonly keys = new WeakMap<CanonicalMessage, string>();
  constructor(private readonly counter: TokenEstimator) {}

  of(message: CanonicalMessage): number {
    let count = this.counts.get(message);
    if (count === undefined) this.counts.set(message, (count = this.counter.countMessage(message)));
    return count;
  }

  /** The message's bytes, to compare requests for prefix reuse. */
  key(message: CanonicalMessage): string {
    let key = this.keys.get(message);
    if (key === undefined) this.keys.set(message, (key = JSON.stringify(message)));
    return key;
  }
}

/**
 * Tokens, prefix reuse and cache cost of a run's requests. A turn's leading
 * messages equal to the previous request's are cache reads; of the rest, the
 * part the next request reuses was a cache write, the remainder new input.
 */
export function tallyTokens(turns: readonly PolicyTurn[], tokens: MessageTokens, tally: PolicyTally, windowTokens = Number.POSITIVE_INFINITY): void {
  const reusedCounts = turns.map((turn, index) => {
    const previous = turns[index - 1]?.messages;
    let count = 0;
    while (previous && count < turn.messages.length && count < previous.length && (previous[count] === turn.messages[count] || tokens.key(previous[count]!) === tokens.key(turn.messages[count]!))) count += 1;
    return count;
  });
  turns.forEach((turn, index) => {
    const reused = reusedCounts[index]!;
    const writtenEnd = Math.min(turn.messages.length, reusedCounts[index + 1] ?? 0);
    let requestTokens = 0;
    turn.messages.forEach((message, position) => {
      const count = tokens.of(message);
      requestTokens += count;
      tally.inputTokens += count;
      if (position < reused) tally.cachedTokens += count;
      else if (position < writtenEnd) tally.cacheWriteTokens += count;
      else tally.newTokens += count;
    });
    if (requestTokens > windowTokens) tally.overWindow += 1;
  });
}

/**
 * Orphans (a result whose call is not before it in the request) and split
 * units (a call sent without all of its results).
 */
export function pairingProblems(messages: readonly CanonicalMessage[]): { orphans: number; splitUnits: number } {
  const called = new Set<string>();
  const answered = new Set<string>();
  let orphans = 0;
  for (const message of messages) {
    if (message.role === 'assistant') for (const call of message.toolCalls ?? []) called.add(call.id);
    if (message.role === 'tool') {
      if (called.has(message.toolCallId)) answered.add(message.toolCallId);
      else orphans += 1;
    }
  }
  let splitUnits = 0;
  for (const message of messages) {
    if (message.role === 'assistant' && (message.toolCalls ?? []).some((call) => !answered.has(call.id))) splitUnits += 1;
  }
  return { orphans, splitUnits };
}

/** Whether the turn's input still holds the task anchor and the run's first request (the goal). */
export function anchorAndGoal(prefix: CanonicalHistory, input: readonly CanonicalMessage[]): { anchor?: boolean; goal?: boolean } {
  const anchor = prefix.findLast(isTaskAnchorCandidate);
  const goal = prefix.find((message) => message.role === 'user');
  const texts = input.map((message) => messageText(message));
  return {
    anchor: anchor === undefined ? undefined : input.some((message) => message === anchor || (message.role === 'user' && message.content === anchor.content)),
    goal: goal === undefined ? undefined : texts.some((text) => text.includes(goal.content)),
  };
}

export interface OracleLike {
  violations(messages: unknown[], provider: 'openai' | 'anthropic'): unknown[];
}

/** Oracle violations of one request, for both providers. */
export function oracleViolations(oracle: OracleLike, messages: readonly CanonicalMessage[]): number {
  const chat = toOpenAIChat(messages);
  return oracle.violations(chat, 'openai').length + oracle.violations(chat, 'anthropic').length;
}

export function percentile(values: readonly number[], share: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * share))]!;
}

const ratio = (part: number, whole: number): number | null => (whole === 0 ? null : Math.round((part / whole) * 10_000) / 10_000);
const round = (value: number | null): number | null => (value === null ? null : Math.round(value * 1_000) / 1_000);

/** The `--json` shape of one policy (see the README's table of keys). */
export function policySummary(tally: PolicyTally, raw: PolicyTally | undefined, recoverable: boolean) {
  const cost = tally.cachedTokens * CACHE_PRICING.cachedToken + tally.newTokens * CACHE_PRICING.newToken + tally.cacheWriteTokens * CACHE_PRICING.cacheWriteToken;
  // OpenAI-style: no premium on writing the cache.
  const costWithoutWritePremium = tally.cachedTokens * CACHE_PRICING.cachedToken + (tally.newTokens + tally.cacheWriteTokens) * CACHE_PRICING.newToken;
  return {
    runs: tally.runs,
    failedRuns: tally.failedRuns,
    turns: tally.turns,
    inputTokens: tally.inputTokens,
    reductionVsRaw: raw === undefined ? null : ratio(raw.inputTokens - tally.inputTokens, raw.inputTokens),
    cost: { cachedTokens: tally.cachedTokens, cacheWriteTokens: tally.cacheWriteTokens, newTokens: tally.newTokens, total: Math.round(cost), totalWithoutWritePremium: Math.round(costWithoutWritePremium) },
    overWindowTurns: tally.overWindow,
    prefixReuse: ratio(tally.cachedTokens, tally.inputTokens),
    compactions: tally.compactions,
    orphans: tally.orphans,
    splitUnits: tally.splitUnits,
    anchorKept: ratio(tally.anchorKept, tally.anchorTurns),
    goalKept: ratio(tally.goalKept, tally.goalTurns),
    recovery: recoverable
      ? { masked: tally.masked, recovered: tally.recovered, share: tally.masked === 0 ? 1 : ratio(tally.recovered, tally.masked) }
      : { masked: tally.masked, recovered: 0, share: null, note: 'no way back: what this policy removes is not stored' },
    laterUseRecall: { needed: tally.needed, visible: tally.visible, byReference: tally.byReference, missed: tally.missed, share: ratio(tally.visible + tally.byReference, tally.needed) },
    oracleViolations: tally.oracleViolations,
    assemblyMs: { p50: round(percentile(tally.assemblyMs, 0.5)), p99: round(percentile(tally.assemblyMs, 0.99)) },
  };
}

export type PolicySummary = ReturnType<typeof policySummary>;
