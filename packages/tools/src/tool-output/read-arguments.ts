/** A 1-based line range; `end` is inclusive and optional (default: as far as the size bound allows). */
export interface LineRange {
  readonly start: number;
  readonly end?: number;
}

/**
 * A character range in UTF-16 code units (the unit of `ToolOutputRef.chars`),
 * `end` exclusive. A boundary that would split a surrogate pair moves back to
 * the pair's start. Without `end`, reading stops at the end of the line that
 * holds `start`.
 */
export interface CharRange {
  readonly start: number;
  readonly end?: number;
}

/**
 * What the model passes to `read_tool_output`: a reference and at most one
 * of `query`, `lines` or `chars` (none means `lines: { start: 1 }`).
 */
export interface ReadToolOutputArguments {
  readonly ref: string;
  /** Literal text to find; matching lines come back with a little context. */
  readonly query?: string;
  /** Query only: match regardless of letter case. Default false. */
  readonly ignoreCase?: boolean;
  /** Query only: search from this 1-based line (where the previous answer stopped). */
  readonly fromLine?: number;
  /** Query only: search from this character offset (where the previous answer stopped inside an over-wide line). */
  readonly fromChar?: number;
  readonly lines?: LineRange;
  readonly chars?: CharRange;
}

export type ReadFailureCode = 'TOOL_OUTPUT_ARGUMENTS_INVALID' | 'TOOL_OUTPUT_RANGE_INVALID';

export interface ReadFailure {
  readonly ok: false;
  readonly code: ReadFailureCode;
  readonly message: string;
}

/** What one mode produced for a given size budget, before the header is rendered. */
export interface ReadPart {
  readonly ok: true;
  readonly mode: 'query' | 'lines' | 'chars';
  /** Says what is shown, e.g. `lines 1-40 of 120 (chars 0-3912 of 50000)`. */
  readonly description: string;
  /** The text after the header: for ranges, the body slice verbatim. */
  readonly text: string;
  /** For ranges: the UTF-16 offsets of `text` in the body. */
  readonly slice?: { readonly start: number; readonly end: number };
  /** The exact arguments for the next part; absent at the end. */
  readonly next?: ReadToolOutputArguments;
}

export function readFailure(code: ReadFailureCode, message: string): ReadFailure {
  return { ok: false, code, message };
}

export function isPositiveInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 1;
}

export function isNonNegativeInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}
