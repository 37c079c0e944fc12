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

/**
 * The default masked view shows a stored result as its preview when the
 * preview is at most this share of the body, or at most
 * `payingPreviewShare` of it late in a long run (message-composer.ts), or whenever it is smaller
 * for the steps after the context reached capacity; a compaction under
 * pressure projects a body only where its preview is at most this share of
 * its tokens (a change of an old message writes everything after it to the
 * cache again). Priced as providers bill prompt caches
 * (cached input 0.1, new 1, cache write 1.25), a preview barely smaller
 * than its body never pays; half pays within a few turns, sooner when it
 * spares a window cut (a cut writes every kept token again). Measured with
 * `npm run bench -- compaction` on tau-bench and SWE-agent: of a quarter, a
 * third, a half, 0.6, 0.75 and every preview, a half is the lowest cost or
 * within 1% of it in the most cells; for the compaction, of 0.4, a half, 0.6,
 * 0.75, 0.9 and every preview, a half is the lowest in every cell.
 */
export const MASK_PREVIEW_SHARE = 0.5;

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
