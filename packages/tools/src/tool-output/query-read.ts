import { type LineIndex, pairSafeOffset } from './line-index.js';
import { type ReadFailure, type ReadPart, type ReadToolOutputArguments, isPositiveInteger, readFailure } from './read-arguments.js';

export interface QueryReadOptions {
  readonly ref: string;
  readonly query: string;
  readonly ignoreCase: boolean;
  readonly fromLine: number;
  /** Lines of context before and after each matching line. */
  readonly contextLines: number;
  readonly budgetChars: number;
}

/** Shown lines longer than this are cut; a matching line is cut around its first match. */
const LINE_DISPLAY_MAX_CHARS = 400;
const CONTEXT_DISPLAY_CHARS = 160;
const MATCH_LEAD_CHARS = 120;

function escapeRegExp(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');
}

/**
 * The lines holding a literal `query` (from `fromLine` on), each with a
 * little context and its line number; `>` marks a matching line. Bounded by
 * `budgetChars`; when more matches remain, the next part's arguments carry
 * `fromLine`. Finding nothing is an answer, not an error.
 */
export function readQuery(index: LineIndex, options: QueryReadOptions): ReadPart | ReadFailure {
  const { ref, query, ignoreCase, fromLine, contextLines, budgetChars } = options;
  if (query.length === 0) return readFailure('TOOL_OUTPUT_ARGUMENTS_INVALID', 'query must not be empty');
  if (!isPositiveInteger(fromLine)) return readFailure('TOOL_OUTPUT_ARGUMENTS_INVALID', 'fromLine must be an integer >= 1');
  const total = index.lineCount;
  if (fromLine > Math.max(total, 1)) return readFailure('TOOL_OUTPUT_RANGE_INVALID', `fromLine (${fromLine}) is past the last line (${total})`);

  const firstMatchColumn = new Map<number, number>();
  const pattern = new RegExp(escapeRegExp(query), ignoreCase ? 'giu' : 'gu');
  pattern.lastIndex = index.startOf(fromLine);
  for (let match = pattern.exec(index.body); match !== null; match = pattern.exec(index.body)) {
    const first = index.lineAt(match.index);
    const last = index.lineAt(match.index + match[0].length - 1);
    if (!firstMatchColumn.has(first)) firstMatchColumn.set(first, match.index - index.startOf(first));
    for (let line = first + 1; line <= last; line += 1) if (!firstMatchColumn.has(line)) firstMatchColumn.set(line, 0);
    if (match[0].length === 0) pattern.lastIndex += 1;
  }
  const matched = [...firstMatchColumn.keys()].sort((left, right) => left - right);
  const quoted = JSON.stringify(query);
  if (matched.length === 0) {
    return {
      ok: true,
      mode: 'query',
      description: `no line${fromLine > 1 ? ` from line ${fromLine} on` : ''} contains ${quoted}${ignoreCase ? ' (ignoring case)' : ''}; the output has ${total} lines; read by range with ${JSON.stringify({ ref, lines: { start: 1 } })}`,
      text: '',
    };
  }

  const width = String(total).length;
  const out: string[] = [];
  let used = 0;
  let shownThrough = 0;
  let stoppedAt: number | undefined;
  let shownMatches = 0;
  for (const line of matched) {
    const from = Math.max(line - contextLines, shownThrough + 1, 1);
    const to = Math.min(line + contextLines, total);
    const block: string[] = [];
    if (out.length > 0 && from > shownThrough + 1) block.push('--');
    for (let current = from; current <= to; current += 1) {
      block.push(renderLine(index, current, width, firstMatchColumn.get(current)));
    }
    let cost = block.reduce((sum, text) => sum + text.length + 1, 0);
    let through = to;
    if (used + cost > budgetChars && out.length > 0) {
      stoppedAt = line;
      break;
    }
    if (cost > budgetChars) {
      // A first block too wide for the bound keeps only its matching line (at most a few hundred chars).
      block.splice(0, block.length, renderLine(index, line, width, firstMatchColumn.get(line)));
      cost = block[0]!.length + 1;
      through = line;
    }
    out.push(...block);
    used += cost;
    shownThrough = through;
    shownMatches += 1;
  }
  const next: ReadToolOutputArguments | undefined =
    stoppedAt === undefined ? undefined : { ref, query, ...(ignoreCase ? { ignoreCase } : {}), fromLine: stoppedAt };
  const scope = fromLine > 1 ? ` from line ${fromLine} on` : '';
  return {
    ok: true,
    mode: 'query',
    description: `${matched.length} line${matched.length === 1 ? '' : 's'}${scope} contain${matched.length === 1 ? 's' : ''} ${quoted}${ignoreCase ? ' (ignoring case)' : ''}; showing ${shownMatches} with ${contextLines} line${contextLines === 1 ? '' : 's'} of context (">" marks a match; lines of ${total})`,
    text: out.join('\n'),
    ...(next === undefined ? {} : { next }),
  };
}

/** `>  12: text` for a match, `   12: text` for context; long lines cut with the body offsets shown. */
function renderLine(index: LineIndex, line: number, width: number, matchColumn: number | undefined): string {
  const marker = matchColumn === undefined ? ' ' : '>';
  const prefix = `${marker}${String(line).padStart(width)}: `;
  const text = index.textOf(line);
  if (text.length <= LINE_DISPLAY_MAX_CHARS) return prefix + text;
  const lineStart = index.startOf(line);
  const from = matchColumn === undefined ? 0 : pairSafeOffset(text, Math.max(0, matchColumn - MATCH_LEAD_CHARS));
  const to = pairSafeOffset(text, Math.min(text.length, from + (matchColumn === undefined ? CONTEXT_DISPLAY_CHARS : LINE_DISPLAY_MAX_CHARS - 80)));
  return `${prefix}${from > 0 ? '…' : ''}${text.slice(from, to)}… [line is ${text.length} chars; shown: chars ${lineStart + from}-${lineStart + to} of the output]`;
}
