import { ConfigurationError, type TokenEstimator } from '@strata/context';
import type { BlackboardEntry } from './blackboard-store.js';
import type { BlackboardDiagnostic } from './diagnostics.js';

/**
 * How a dynamic segment trims what a pattern matched (seed 004 §5).
 * - `latest` (default): the newest entry of the pattern.
 * - `concat`: every entry, oldest first.
 * - `tail_lines_N`: the last N lines of the entries joined by newlines.
 * - `tail_tokens_N`: the longest tail of whole lines that the token estimator
 *   counts at most N tokens; a single newest line over budget is cut inside
 *   at a code-point boundary (reported).
 * - `last_N_turns`: the newest N entries (one entry is one dialogue turn).
 */
export type SegmentPolicy =
  | { readonly kind: 'latest' }
  | { readonly kind: 'concat' }
  | { readonly kind: 'tail_lines'; readonly lines: number }
  | { readonly kind: 'tail_tokens'; readonly tokens: number }
  | { readonly kind: 'last_turns'; readonly turns: number };

export const DEFAULT_SEGMENT_POLICY: SegmentPolicy = Object.freeze({ kind: 'latest' });

const COUNTED = /^(tail_lines|tail_tokens)_([1-9][0-9]{0,8})$/;
const TURNS = /^last_([1-9][0-9]{0,8})_turns$/;

/** Parses a policy name; undefined when it is not one. */
export function parseSegmentPolicy(source: string): SegmentPolicy | undefined {
  if (source === 'latest') return DEFAULT_SEGMENT_POLICY;
  if (source === 'concat') return { kind: 'concat' };
  const counted = COUNTED.exec(source);
  if (counted !== null) {
    const amount = Number(counted[2]);
    return counted[1] === 'tail_lines' ? { kind: 'tail_lines', lines: amount } : { kind: 'tail_tokens', tokens: amount };
  }
  const turns = TURNS.exec(source);
  if (turns !== null) return { kind: 'last_turns', turns: Number(turns[1]) };
  return undefined;
}

export function formatSegmentPolicy(policy: SegmentPolicy): string {
  switch (policy.kind) {
    case 'latest':
    case 'concat':
      return policy.kind;
    case 'tail_lines':
      return `tail_lines_${policy.lines}`;
    case 'tail_tokens':
      return `tail_tokens_${policy.tokens}`;
    case 'last_turns':
      return `last_${policy.turns}_turns`;
  }
}

export interface ApplySegmentPolicyOptions {
  readonly policy: SegmentPolicy;
  /** Needed by `tail_tokens_N` only. */
  readonly estimator?: TokenEstimator;
  /** Names the pattern in diagnostics. */
  readonly subject: string;
  /**
   * Entries older than those given that the caller left out, knowing the
   * policy drops them (`entriesNeeded`); counted in the diagnostics. Default 0.
   */
  readonly omitted?: number;
}

export interface SegmentPolicyResult {
  /** Kept entries, oldest first; the oldest may carry only the tail of its content. */
  readonly entries: readonly BlackboardEntry[];
  readonly diagnostics: readonly BlackboardDiagnostic[];
}

/** Trims one pattern's entries (oldest first) by a policy. Never reorders; never splits a line unless reported. */
export function applySegmentPolicy(entries: readonly BlackboardEntry[], options: ApplySegmentPolicyOptions): SegmentPolicyResult {
  const { policy } = options;
  switch (policy.kind) {
    case 'latest':
      return kept(entries, entries.slice(-1), options);
    case 'concat':
      return { entries, diagnostics: [] };
    case 'last_turns':
      return kept(entries, entries.slice(-policy.turns), options);
    case 'tail_lines':
      return tailByLines(entries, options, (lines) => lines.length <= policy.lines);
    case 'tail_tokens': {
      const estimator = options.estimator;
      if (estimator === undefined) {
        throw new ConfigurationError({ setting: 'estimator', message: `policy tail_tokens_${policy.tokens} for ${options.subject} needs a token estimator` });
      }
      const fits = (lines: readonly string[]) => estimator.countText(lines.join('\n')) <= policy.tokens;
      const result = tailByLines(entries, options, fits);
      if (result.entries.length > 0 || entries.length === 0) return result;
      return cutNewestLine(entries, options, (text) => estimator.countText(text) <= policy.tokens);
    }
  }
}

/**
 * How many of the newest entries the policy can need, read from a run of
 * them (newest first): a count within `newestFirst`, or undefined when the
 * run may be too short (every entry kept so far; `concat` always). Applying
 * the policy to those entries (oldest first, the rest as `omitted`) gives
 * what it gives over all of them, for a `tail_tokens_N` estimator whose
 * count never falls when text is put in front.
 */
export function entriesNeeded(policy: SegmentPolicy, newestFirst: readonly BlackboardEntry[], estimator?: TokenEstimator): number | undefined {
  switch (policy.kind) {
    case 'latest':
      return newestFirst.length >= 1 ? 1 : undefined;
    case 'last_turns':
      return newestFirst.length >= policy.turns ? policy.turns : undefined;
    case 'concat':
      return undefined;
    case 'tail_lines': {
      let lines = 0;
      for (let index = 0; index < newestFirst.length; index += 1) {
        lines += countLines(newestFirst[index] as BlackboardEntry);
        if (lines >= policy.lines) return index + 1;
      }
      return undefined;
    }
    case 'tail_tokens': {
      if (estimator === undefined || newestFirst.length === 0) return undefined;
      const text = newestFirst.map((entry) => entry.content).reverse().join('\n');
      return estimator.countText(text) > policy.tokens ? newestFirst.length : undefined;
    }
  }
}

function kept(all: readonly BlackboardEntry[], entries: readonly BlackboardEntry[], options: ApplySegmentPolicyOptions): SegmentPolicyResult {
  const dropped = all.length - entries.length + (options.omitted ?? 0);
  if (dropped === 0) return { entries, diagnostics: [] };
  return { entries, diagnostics: [trimmed(options, dropped)] };
}

function trimmed(options: ApplySegmentPolicyOptions, droppedEntries: number, cutLines = 0): BlackboardDiagnostic {
  const cut = cutLines > 0 ? ` and ${cutLines} line(s) of the oldest kept entry` : '';
  return {
    code: 'BLACKBOARD_POLICY_TRIMMED',
    subject: options.subject,
    message: `${formatSegmentPolicy(options.policy)} dropped ${droppedEntries} entr${droppedEntries === 1 ? 'y' : 'ies'}${cut} of ${options.subject}`,
  };
}

/**
 * Keeps the longest tail of lines (across entries joined by newlines) that
 * `fits`. `fits` must be monotone: if a tail fits, every shorter tail fits.
 */
function tailByLines(
  entries: readonly BlackboardEntry[],
  options: ApplySegmentPolicyOptions,
  fits: (lines: readonly string[]) => boolean,
): SegmentPolicyResult {
  const owners: number[] = [];
  const lines: string[] = [];
  entries.forEach((entry, index) => {
    for (const line of entry.content.split('\n')) {
      lines.push(line);
      owners.push(index);
    }
  });
  // Binary search for the largest kept count; fits([]) is true by definition.
  let low = 0;
  let high = lines.length;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (fits(lines.slice(lines.length - middle))) low = middle;
    else high = middle - 1;
  }
  const omitted = options.omitted ?? 0;
  if (low === lines.length) return omitted === 0 ? { entries, diagnostics: [] } : { entries, diagnostics: [trimmed(options, omitted)] };
  if (low === 0) return { entries: [], diagnostics: [trimmed(options, entries.length + omitted)] };
  const firstLine = lines.length - low;
  const firstOwner = owners[firstLine] as number;
  const ownerStart = owners.indexOf(firstOwner);
  const cutLines = firstLine - ownerStart;
  const oldest = entries[firstOwner] as BlackboardEntry;
  const result = [
    ...(cutLines === 0 ? [oldest] : [{ ...oldest, content: lines.slice(firstLine, ownerStart + countLines(oldest)).join('\n') }]),
    ...entries.slice(firstOwner + 1),
  ];
  return { entries: result, diagnostics: [trimmed(options, firstOwner + omitted, cutLines)] };
}

function countLines(entry: BlackboardEntry): number {
  return entry.content.split('\n').length;
}

/** Last resort of `tail_tokens_N`: the longest code-point tail of the newest line that fits. */
function cutNewestLine(
  entries: readonly BlackboardEntry[],
  options: ApplySegmentPolicyOptions,
  fits: (text: string) => boolean,
): SegmentPolicyResult {
  const newest = entries[entries.length - 1] as BlackboardEntry;
  const lastLine = newest.content.slice(newest.content.lastIndexOf('\n') + 1);
  const codePoints = Array.from(lastLine);
  let low = 0;
  let high = codePoints.length;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (fits(codePoints.slice(codePoints.length - middle).join(''))) low = middle;
    else high = middle - 1;
  }
  const lineCut: BlackboardDiagnostic = {
    code: 'BLACKBOARD_POLICY_LINE_CUT',
    subject: options.subject,
    message: `${formatSegmentPolicy(options.policy)}: the newest line of ${options.subject} alone exceeds the budget; kept its last ${low} of ${codePoints.length} characters`,
  };
  const total = entries.length + (options.omitted ?? 0);
  if (low === 0) return { entries: [], diagnostics: [trimmed(options, total), lineCut] };
  return {
    entries: [{ ...newest, content: codePoints.slice(codePoints.length - low).join('') }],
    diagnostics: [trimmed(options, total - 1), lineCut],
  };
}
