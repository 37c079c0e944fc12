import { type LineIndex, pairSafeOffset } from './line-index.js';
import { type ReadFailure, type ReadPart, type ReadToolOutputArguments, isNonNegativeInteger, isPositiveInteger, readFailure } from './read-arguments.js';

export interface QueryReadOptions {
  readonly ref: string;
  readonly query: string;
  readonly ignoreCase: boolean;
  /** Search from the start of this 1-based line. */
  readonly fromLine?: number;
  /** Search from this UTF-16 offset (inside an over-wide line); wins over `fromLine`. */
  readonly fromChar?: number;
  /** Lines of context before and after each matching line. */
  readonly contextLines: number;
  readonly budgetChars: number;
}

/** Lines longer than this are over-wide: each match in them is shown as its own excerpt. */
const LINE_DISPLAY_MAX_CHARS = 400;
const CONTEXT_DISPLAY_CHARS = 160;
const EXCERPT_LEAD_CHARS = 120;
const EXCERPT_CHARS = 320;

/** Escapes the syntax characters (and `/`), the only escapes a `u`-flag pattern accepts outside a class. */
function escapeRegExp(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
}

/** A shown unit: a narrow matching line with its context, or one excerpt of an over-wide line. */
interface Hit {
  readonly line: number;
  /** Body offset of the match that opened this unit. */
  readonly offset: number;
  /** For an over-wide line: the excerpt's body offsets. */
  readonly excerpt?: { readonly start: number; readonly end: number };
}

/**
 * The places holding a literal `query`, from `fromChar` or `fromLine` on:
 * a narrow matching line with a little context and its line number (`>`
 * marks a matching line), and for over-wide lines (compact JSON) an excerpt
 * around each match with its body offsets. Bounded by `budgetChars`; when
 * more remain, the next part's arguments carry `fromLine` or `fromChar`.
 * Finding nothing is an answer, not an error.
 */
export function readQuery(index: LineIndex, options: QueryReadOptions): ReadPart | ReadFailure {
  const { ref, query, ignoreCase, contextLines, budgetChars } = options;
  const total = index.lineCount;
  if (query.length === 0) return readFailure('TOOL_OUTPUT_ARGUMENTS_INVALID', 'query must not be empty');
  if (options.fromLine !== undefined && !isPositiveInteger(options.fromLine)) return readFailure('TOOL_OUTPUT_ARGUMENTS_INVALID', 'fromLine must be an integer >= 1');
  if (options.fromChar !== undefined && !isNonNegativeInteger(options.fromChar)) return readFailure('TOOL_OUTPUT_ARGUMENTS_INVALID', 'fromChar must be an integer >= 0');
  if (options.fromLine !== undefined && options.fromLine > Math.max(total, 1)) return readFailure('TOOL_OUTPUT_RANGE_INVALID', `fromLine (${options.fromLine}) is past the last line (${total})`);
  if (options.fromChar !== undefined && options.fromChar > index.body.length) return readFailure('TOOL_OUTPUT_RANGE_INVALID', `fromChar (${options.fromChar}) is past the end (${index.body.length} chars)`);
  const from = options.fromChar ?? index.startOf(options.fromLine ?? 1);

  const { hits, matchCount, matchedLines } = findHits(index, query, ignoreCase, from);
  const quoted = JSON.stringify(query);
  const caseNote = ignoreCase ? ' (ignoring case)' : '';
  const lineCount = `${total} line${total === 1 ? '' : 's'}`;
  const scope = from > 0 ? ` from ${options.fromChar !== undefined ? `char ${from}` : `line ${options.fromLine}`} on` : '';
  if (hits.length === 0) {
    return {
      ok: true,
      mode: 'query',
      description: `no match for ${quoted}${caseNote}${scope}; the output has ${lineCount}; read by range with ${JSON.stringify({ ref, lines: { start: 1 } })}`,
      text: '',
    };
  }

  const width = String(total).length;
  const out: string[] = [];
  let used = 0;
  let shownThrough = 0;
  let shown = 0;
  let stoppedAt: Hit | undefined;
  for (const hit of hits) {
    const block: string[] = [];
    let through = shownThrough;
    if (hit.excerpt !== undefined) {
      if (out.length > 0) block.push('--');
      block.push(renderExcerpt(index, hit, width));
      through = Math.max(shownThrough, hit.line);
    } else {
      const first = Math.max(hit.line - contextLines, shownThrough + 1, 1);
      const last = Math.min(hit.line + contextLines, total);
      if (out.length > 0 && first > shownThrough + 1) block.push('--');
      for (let line = first; line <= last; line += 1) block.push(renderLine(index, line, width, matchedLines.has(line)));
      through = Math.max(shownThrough, last);
    }
    let cost = block.reduce((sum, text) => sum + text.length + 1, 0);
    if (used + cost > budgetChars && out.length > 0) {
      stoppedAt = hit;
      break;
    }
    if (cost > budgetChars) {
      // A first block too wide for the bound keeps only its matching line (a few hundred chars at most).
      block.splice(0, block.length, hit.excerpt === undefined ? renderLine(index, hit.line, width, true) : renderExcerpt(index, hit, width));
      cost = block[0]!.length + 1;
      through = hit.line;
    }
    out.push(...block);
    used += cost;
    shownThrough = through;
    shown += 1;
  }
  let next: ReadToolOutputArguments | undefined;
  if (stoppedAt !== undefined) {
    const position = stoppedAt.excerpt === undefined ? { fromLine: stoppedAt.line } : { fromChar: stoppedAt.offset };
    next = { ref, query, ...(ignoreCase ? { ignoreCase } : {}), ...position };
  }
  const places = `${matchCount} match${matchCount === 1 ? '' : 'es'} on ${matchedLines.size} line${matchedLines.size === 1 ? '' : 's'}`;
  return {
    ok: true,
    mode: 'query',
    description: `${places} for ${quoted}${caseNote}${scope}; showing ${shown} place${shown === 1 ? '' : 's'} (">" marks a matching line, ${contextLines} line${contextLines === 1 ? '' : 's'} of context; the output has ${lineCount})`,
    text: out.join('\n'),
    ...(next === undefined ? {} : { next }),
  };
}

function findHits(index: LineIndex, query: string, ignoreCase: boolean, from: number): { hits: Hit[]; matchCount: number; matchedLines: Set<number> } {
  const hits: Hit[] = [];
  const matchedLines = new Set<number>();
  let matchCount = 0;
  let lastNarrowLine = 0;
  let excerptEnd = -1;
  const pattern = new RegExp(escapeRegExp(query), ignoreCase ? 'giu' : 'gu');
  pattern.lastIndex = from;
  for (let match = pattern.exec(index.body); match !== null; match = pattern.exec(index.body)) {
    matchCount += 1;
    const line = index.lineAt(match.index);
    const lastLine = index.lineAt(match.index + match[0].length - 1);
    for (let covered = line; covered <= lastLine; covered += 1) matchedLines.add(covered);
    if (index.textOf(line).length > LINE_DISPLAY_MAX_CHARS) {
      if (match.index < excerptEnd) continue;
      const lineStart = index.startOf(line);
      const lineEnd = lineStart + index.textOf(line).length;
      const start = pairSafeOffset(index.body, Math.max(lineStart, match.index - EXCERPT_LEAD_CHARS));
      const end = pairSafeOffset(index.body, Math.min(lineEnd, start + EXCERPT_CHARS));
      excerptEnd = end;
      hits.push({ line, offset: match.index, excerpt: { start, end } });
    } else if (line > lastNarrowLine) {
      lastNarrowLine = line;
      hits.push({ line, offset: match.index });
    }
  }
  return { hits, matchCount, matchedLines };
}

/** `>  12: text` for a matching line, `   12: text` for context; a long context line is cut. */
function renderLine(index: LineIndex, line: number, width: number, matching: boolean): string {
  const prefix = `${matching ? '>' : ' '}${String(line).padStart(width)}: `;
  const text = index.textOf(line);
  if (text.length <= LINE_DISPLAY_MAX_CHARS) return prefix + text;
  const lineStart = index.startOf(line);
  const end = pairSafeOffset(text, CONTEXT_DISPLAY_CHARS);
  return `${prefix}${text.slice(0, end)}… [line is ${text.length} chars; shown: chars ${lineStart}-${lineStart + end} of the output]`;
}

function renderExcerpt(index: LineIndex, hit: Hit, width: number): string {
  const { start, end } = hit.excerpt!;
  const lineStart = index.startOf(hit.line);
  const lineEnd = lineStart + index.textOf(hit.line).length;
  const text = index.body.slice(start, end);
  return `>${String(hit.line).padStart(width)}: ${start > lineStart ? '…' : ''}${text}${end < lineEnd ? '…' : ''} [line is ${lineEnd - lineStart} chars; shown: chars ${start}-${end} of the output]`;
}
