import { ConfigurationError } from '@strata/context';
import { LineIndex } from './line-index.js';
import { readQuery } from './query-read.js';
import { readCharRange, readLineRange } from './range-read.js';
import { type ReadFailure, type ReadPart, type ReadToolOutputArguments, readFailure } from './read-arguments.js';

export interface ReadToolOutputOptions {
  /** The stored body, byte-exact. */
  readonly body: string;
  readonly arguments: ReadToolOutputArguments;
  /** Every answer's content is at most this many UTF-16 code units, header included. Default 8,000; at least 1,000. */
  readonly maxChars?: number;
  /** Query mode: lines of context around each match. Default 2. */
  readonly contextLines?: number;
}

export interface ReadToolOutputAnswer extends Omit<ReadPart, 'ok'> {
  readonly ok: true;
  /**
   * What the model reads: one header line, `[read_tool_output "<ref>": <what
   * is shown>] next: <exact arguments>` (or `end of output`), then a newline
   * and `text`. For ranges `text` is the body slice verbatim, so the parts
   * concatenate back to the body exactly.
   */
  readonly content: string;
}

export const READ_TOOL_OUTPUT_DEFAULTS = Object.freeze({ maxChars: 8_000, contextLines: 2 });
const MIN_MAX_CHARS = 1_000;
/** Below this much room for text next to the header, the ref or query is too long to answer usefully. */
const MIN_TEXT_BUDGET_CHARS = 500;

/**
 * Reads part of a stored tool output: a literal query search, a line range,
 * or a character range (for compact JSON and over-wide lines). The model
 * chooses; nothing here searches on its behalf. Pure and deterministic.
 */
export function readToolOutput(options: ReadToolOutputOptions): ReadToolOutputAnswer | ReadFailure {
  const { maxChars = READ_TOOL_OUTPUT_DEFAULTS.maxChars, contextLines = READ_TOOL_OUTPUT_DEFAULTS.contextLines } = options;
  if (!Number.isInteger(maxChars) || maxChars < MIN_MAX_CHARS) {
    throw new ConfigurationError({ setting: 'maxChars', message: `read_tool_output maxChars must be an integer >= ${MIN_MAX_CHARS}, got ${maxChars}` });
  }
  if (!Number.isInteger(contextLines) || contextLines < 0) {
    throw new ConfigurationError({ setting: 'contextLines', message: `read_tool_output contextLines must be a non-negative integer, got ${contextLines}` });
  }
  const request = options.arguments;
  const chosen = (['query', 'lines', 'chars'] as const).filter((key) => request[key] !== undefined);
  if (chosen.length > 1) return readFailure('TOOL_OUTPUT_ARGUMENTS_INVALID', `give only one of query, lines or chars (got ${chosen.join(' and ')})`);
  if (request.query === undefined && (request.fromLine !== undefined || request.fromChar !== undefined || request.ignoreCase !== undefined)) {
    return readFailure('TOOL_OUTPUT_ARGUMENTS_INVALID', 'fromLine, fromChar and ignoreCase apply only with a query');
  }
  if (request.fromLine !== undefined && request.fromChar !== undefined) {
    return readFailure('TOOL_OUTPUT_ARGUMENTS_INVALID', 'give fromLine or fromChar, not both');
  }
  const index = new LineIndex(options.body);
  const build = (budgetChars: number): ReadPart | ReadFailure => {
    if (request.query !== undefined) {
      return readQuery(index, {
        ref: request.ref,
        query: request.query,
        ignoreCase: request.ignoreCase === true,
        fromLine: request.fromLine,
        fromChar: request.fromChar,
        contextLines,
        budgetChars,
      });
    }
    if (request.chars !== undefined) return readCharRange(index, request.ref, request.chars, budgetChars);
    return readLineRange(index, request.ref, request.lines ?? { start: 1 }, budgetChars);
  };
  // The header's length depends on the numbers in it; shrink the text budget until the whole answer fits.
  let budgetChars = maxChars - 1 - renderHeader(request, 'x'.repeat(160), request).length;
  for (;;) {
    if (budgetChars < MIN_TEXT_BUDGET_CHARS) {
      return readFailure('TOOL_OUTPUT_ARGUMENTS_INVALID', 'the ref or query is too long to answer within the size bound');
    }
    const part = build(budgetChars);
    if (!part.ok) return part;
    const content = `${renderHeader(request, part.description, part.next)}\n${part.text}`;
    if (content.length <= maxChars) return { ...part, content };
    budgetChars -= content.length - maxChars;
  }
}

function renderHeader(request: ReadToolOutputArguments, description: string, next: ReadToolOutputArguments | undefined): string {
  return `[read_tool_output ${JSON.stringify(request.ref)}: ${description}] ${next === undefined ? 'end of output' : `next: ${JSON.stringify(next)}`}`;
}

/**
 * The arguments in an answer's header (`next: {...}`), or undefined at the
 * end: what a reader follows. The description may quote a query that itself
 * holds "] next: ", so the first marker whose remainder parses wins.
 */
export function nextArgumentsOf(content: string): ReadToolOutputArguments | undefined {
  const header = content.split('\n', 1)[0] ?? '';
  const marker = '] next: ';
  for (let at = header.indexOf(marker); at !== -1; at = header.indexOf(marker, at + 1)) {
    try {
      const parsed: unknown = JSON.parse(header.slice(at + marker.length));
      if (typeof parsed === 'object' && parsed !== null && typeof (parsed as { ref?: unknown }).ref === 'string') return parsed as ReadToolOutputArguments;
    } catch {
      // Not the marker: part of the description.
    }
  }
  return undefined;
}
