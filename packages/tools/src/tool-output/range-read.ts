import { type CharRange, type LineRange, type ReadFailure, type ReadPart, type ReadToolOutputArguments, isNonNegativeInteger, isPositiveInteger, readFailure } from './read-arguments.js';
import { type LineIndex, pairSafeOffset } from './line-index.js';

/**
 * Whole lines from `range.start` while they fit `budgetChars`. A first line
 * wider than the budget is shown in part, and the next part continues it by
 * character range: the only place the runtime proposes a character range.
 */
export function readLineRange(index: LineIndex, ref: string, range: LineRange, budgetChars: number): ReadPart | ReadFailure {
  const total = index.lineCount;
  const body = index.body;
  if (!isPositiveInteger(range.start)) return readFailure('TOOL_OUTPUT_ARGUMENTS_INVALID', 'lines.start must be an integer >= 1');
  if (range.end !== undefined && !isPositiveInteger(range.end)) return readFailure('TOOL_OUTPUT_ARGUMENTS_INVALID', 'lines.end must be an integer >= 1');
  if (total === 0) {
    if (range.start === 1) return { ok: true, mode: 'lines', description: 'the output is empty (0 lines)', text: '', slice: { start: 0, end: 0 } };
    return readFailure('TOOL_OUTPUT_RANGE_INVALID', `line ${range.start} does not exist: the output is empty`);
  }
  if (range.start > total) return readFailure('TOOL_OUTPUT_RANGE_INVALID', `line ${range.start} does not exist: the output has ${total} lines`);
  if (range.end !== undefined && range.end < range.start) return readFailure('TOOL_OUTPUT_RANGE_INVALID', `lines.end (${range.end}) is before lines.start (${range.start})`);
  const last = Math.min(range.end ?? total, total);
  const start = index.startOf(range.start);

  if (index.endOf(range.start) - start > budgetChars) {
    const end = pairSafeOffset(body, start + budgetChars);
    const width = index.endOf(range.start) - start;
    return {
      ok: true,
      mode: 'lines',
      description: `line ${range.start} of ${total} is ${width} chars wide, shown in part: chars ${start}-${end} of ${body.length}`,
      text: body.slice(start, end),
      slice: { start, end },
      next: { ref, chars: { start: end } },
    };
  }
  let line = range.start;
  while (line < last && index.endOf(line + 1) - start <= budgetChars) line += 1;
  const end = index.endOf(line);
  let next: ReadToolOutputArguments | undefined;
  if (line < last) next = { ref, lines: range.end === undefined ? { start: line + 1 } : { start: line + 1, end: range.end } };
  else if (line < total) next = { ref, lines: { start: line + 1 } };
  return {
    ok: true,
    mode: 'lines',
    description: `lines ${range.start}-${line} of ${total} (chars ${start}-${end} of ${body.length})`,
    text: body.slice(start, end),
    slice: { start, end },
    ...(next === undefined ? {} : { next }),
  };
}

/**
 * A character range, bounded by `budgetChars`, never splitting a surrogate
 * pair. Meant for compact JSON and other over-wide lines; without `end` it
 * stops at the end of the line holding `start`, and the next part goes back
 * to line ranges once a line boundary is reached.
 */
export function readCharRange(index: LineIndex, ref: string, range: CharRange, budgetChars: number): ReadPart | ReadFailure {
  const body = index.body;
  if (!isNonNegativeInteger(range.start)) return readFailure('TOOL_OUTPUT_ARGUMENTS_INVALID', 'chars.start must be an integer >= 0');
  if (range.end !== undefined && !isNonNegativeInteger(range.end)) return readFailure('TOOL_OUTPUT_ARGUMENTS_INVALID', 'chars.end must be an integer >= 0');
  if (body.length === 0) {
    if (range.start === 0) return { ok: true, mode: 'chars', description: 'the output is empty (0 chars)', text: '', slice: { start: 0, end: 0 } };
    return readFailure('TOOL_OUTPUT_RANGE_INVALID', `char ${range.start} does not exist: the output is empty`);
  }
  if (range.start >= body.length) return readFailure('TOOL_OUTPUT_RANGE_INVALID', `chars.start (${range.start}) is at or past the end: the output has ${body.length} chars`);
  if (range.end !== undefined && range.end <= range.start) return readFailure('TOOL_OUTPUT_RANGE_INVALID', `chars.end (${range.end}) must be greater than chars.start (${range.start})`);
  const start = pairSafeOffset(body, range.start);
  const requestedEnd = Math.min(range.end ?? index.endOf(index.lineAt(start)), body.length);
  let end = Math.min(requestedEnd, start + budgetChars);
  if (end < body.length) end = pairSafeOffset(body, end);
  if (end <= start) end = Math.min(body.length, start + 2);

  let next: ReadToolOutputArguments | undefined;
  if (end < body.length) {
    if (end < requestedEnd) next = { ref, chars: range.end === undefined ? { start: end } : { start: end, end: range.end } };
    else if (index.isLineStart(end)) next = { ref, lines: { start: index.lineAt(end) } };
    else next = { ref, chars: { start: end } };
  }
  const firstLine = index.lineAt(start);
  const lastLine = index.lineAt(Math.max(start, end - 1));
  return {
    ok: true,
    mode: 'chars',
    description: `chars ${start}-${end} of ${body.length} (line${firstLine === lastLine ? ` ${firstLine}` : `s ${firstLine}-${lastLine}`} of ${index.lineCount})`,
    text: body.slice(start, end),
    slice: { start, end },
    ...(next === undefined ? {} : { next }),
  };
}
