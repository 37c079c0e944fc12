import { LineCounter, isMap, parseDocument, type Document } from 'yaml';
import { FrontMatterError } from './errors/front-matter-error.js';

export interface ReadFrontMatterOptions {
  /** The whole file. A leading byte-order mark is dropped; `\n` and `\r\n` line ends are both accepted. */
  readonly text: string;
  /** The file, named in errors. */
  readonly file: string;
}

/** A file split into its YAML front matter and the body after it. */
export interface FrontMatter {
  /**
   * The parsed block, free of YAML errors. Its contents are a mapping, or
   * null when the block is empty or holds only comments. Node offsets
   * (`range`) count from the start of the block, not of the file.
   */
  readonly document: Document.Parsed;
  /** The 1-based file line of an offset into the block (a node's `range[0]`). */
  lineOf(offset: number): number;
  /** Everything after the closing fence line, verbatim (line ends as in the file). */
  readonly body: string;
  /** The 1-based file line where the body starts. */
  readonly bodyLine: number;
}

/** A fence: `---` alone on its line; trailing spaces, tabs and a `\r` are allowed. */
const FENCE = /^---[ \t]*\r?$/;

/**
 * Reads a front matter block: line 1 is a `---` fence, the YAML runs to the
 * next fence line, and the body follows. The one reader for every SKILL.md
 * in the repository; callers check the fields themselves.
 *
 * Throws `FrontMatterError` naming the file and the line: no opening fence
 * (line 1), no closing fence (the file's last line, where one was expected),
 * invalid YAML (the line where the parser found the fault) or a block that is
 * not a mapping (line 2, the block's first line).
 */
export function readFrontMatter(options: ReadFrontMatterOptions): FrontMatter {
  const { file } = options;
  const text = options.text.startsWith('\uFEFF') ? options.text.slice(1) : options.text;
  const lines = text.split('\n');
  if (!FENCE.test(lines[0] ?? '')) {
    throw new FrontMatterError({ code: 'FRONT_MATTER_MISSING', file, line: 1, reason: 'the file must start with a "---" line opening the YAML front matter' });
  }
  const closing = lines.findIndex((line, index) => index > 0 && FENCE.test(line));
  if (closing === -1) {
    throw new FrontMatterError({ code: 'FRONT_MATTER_UNTERMINATED', file, line: lines.length, reason: 'the front matter opened on line 1 is never closed by a "---" line' });
  }

  const block = lines
    .slice(1, closing)
    .map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line))
    .join('\n');
  const lineCounter = new LineCounter();
  const document = parseDocument(block, { lineCounter, prettyErrors: false });
  // The block's first line is line 2 of the file.
  const lineOf = (offset: number): number => lineCounter.linePos(offset).line + 1;
  const yamlError = document.errors[0];
  if (yamlError !== undefined) {
    const parserMessage = yamlError.message.split('\n')[0] ?? '';
    throw new FrontMatterError({
      code: 'FRONT_MATTER_INVALID_YAML',
      file,
      line: lineOf(yamlError.pos[0]),
      reason: `the front matter is not valid YAML: ${parserMessage}`,
      parserMessage,
      cause: yamlError,
    });
  }
  if (document.contents !== null && !isMap(document.contents)) {
    throw new FrontMatterError({ code: 'FRONT_MATTER_NOT_A_MAPPING', file, line: 2, reason: 'the front matter must be a YAML mapping of fields' });
  }
  return { document, lineOf, body: lines.slice(closing + 1).join('\n'), bodyLine: closing + 2 };
}
