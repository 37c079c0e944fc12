/**
 * Where each line of a body starts. A line ends after its `\n`; a body that
 * does not end with `\n` has one more line; an empty body has none (the
 * same count as `ToolOutputRef.lines`).
 */
export class LineIndex {
  readonly body: string;
  readonly #starts: number[];

  constructor(body: string) {
    this.body = body;
    const starts: number[] = body.length === 0 ? [] : [0];
    let index = body.indexOf('\n');
    while (index !== -1 && index + 1 < body.length) {
      starts.push(index + 1);
      index = body.indexOf('\n', index + 1);
    }
    this.#starts = starts;
  }

  get lineCount(): number {
    return this.#starts.length;
  }

  /** UTF-16 offset where 1-based line `line` starts. */
  startOf(line: number): number {
    return line > this.#starts.length ? this.body.length : this.#starts[line - 1]!;
  }

  /** UTF-16 offset just after line `line` (after its `\n` when it has one). */
  endOf(line: number): number {
    return line >= this.#starts.length ? this.body.length : this.#starts[line]!;
  }

  /** The 1-based line that holds `offset` (the last line for the body's end). */
  lineAt(offset: number): number {
    let low = 0;
    let high = this.#starts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (this.#starts[middle]! <= offset) low = middle;
      else high = middle - 1;
    }
    return low + 1;
  }

  /** True when `offset` is the start of a line (or the body's end). */
  isLineStart(offset: number): boolean {
    return offset === this.body.length || offset === 0 || this.body.charCodeAt(offset - 1) === 0x0a;
  }

  /** The line's text without its `\n` (or `\r\n`). */
  textOf(line: number): string {
    const text = this.body.slice(this.startOf(line), this.endOf(line));
    return text.endsWith('\r\n') ? text.slice(0, -2) : text.endsWith('\n') ? text.slice(0, -1) : text;
  }
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/** True when `offset` falls between the two halves of a surrogate pair. */
export function splitsSurrogatePair(text: string, offset: number): boolean {
  return offset > 0 && offset < text.length && isHighSurrogate(text.charCodeAt(offset - 1)) && isLowSurrogate(text.charCodeAt(offset));
}

/** `offset`, moved back one code unit when it would split a surrogate pair. */
export function pairSafeOffset(text: string, offset: number): number {
  return splitsSurrogatePair(text, offset) ? offset - 1 : offset;
}
