import type { ToolOutputRef, ToolResultMessage } from './messages.js';

export interface PreviewOptions {
  /** Default: 160 characters. */
  readonly headChars: number;
  /** Default: 80 characters. */
  readonly tailChars: number;
  /** Bodies up to this long are left whole. Default: head + tail + 200; a preview that would not be shorter than its body is never made. */
  readonly minChars?: number;
}

export const PREVIEW_DEFAULTS: PreviewOptions = Object.freeze({ headChars: 160, tailChars: 80 });

/** Cuts at `index` without splitting a surrogate pair. */
function safeCut(text: string, index: number): number {
  const code = text.charCodeAt(index - 1);
  return index > 0 && code >= 0xd800 && code <= 0xdbff ? index - 1 : index;
}

/**
 * A stored result's body as a small head/tail preview plus its structured
 * reference. Undefined when the result has no reference (it is never blindly
 * deleted) or when the preview would not be smaller.
 */
export function previewToolResult(result: ToolResultMessage, options: PreviewOptions = PREVIEW_DEFAULTS): ToolResultMessage | undefined {
  const ref = result.outputRef;
  if (!ref || result.masked) return undefined;
  const body = result.content;
  const floor = options.headChars + options.tailChars + 200;
  if (body.length <= Math.max(floor, options.minChars ?? floor)) return undefined;
  const head = body.slice(0, safeCut(body, options.headChars));
  const tailStart = body.length - options.tailChars;
  const tail = body.slice(safeCut(body, tailStart) === tailStart ? tailStart : tailStart + 1);
  const content = formatToolResultPreview({ ref, head, tail, omittedChars: body.length - head.length - tail.length });
  // The header makes a preview of a body just over the floor longer than the body: then keep the body.
  return content.length < body.length ? { ...result, content, masked: true } : undefined;
}

/**
 * The text of a preview: a header naming the reference and how to read more,
 * the head, the count of omitted characters, the tail. Used by
 * `previewToolResult` and by the runtime for a streamed body it never held whole.
 */
export function formatToolResultPreview(options: { readonly ref: ToolOutputRef; readonly head: string; readonly tail: string; readonly omittedChars: number }): string {
  const { ref, head, tail } = options;
  return (
    `[stored output ref="${ref.id}": ${ref.chars} characters, ${ref.lines} lines; only the head and tail are shown. ` +
    `Read more with read_tool_output using ref "${ref.id}" and a query or a line range]\n` +
    `${head}\n[… ${options.omittedChars} characters omitted …]\n${tail}`
  );
}
