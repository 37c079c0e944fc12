import { CredentialStreamRedactor, PREVIEW_DEFAULTS, formatToolResultPreview, redactCredentials, type CredentialRedaction, type PreviewOptions, type RedactOptions, type ToolCall, type ToolOutcome, type ToolOutputRef, type ToolOutputStore, type ToolResultMessage } from '@strata/context';
import { describeThrown, toolErrorOutcome } from '../tool-error.js';

/**
 * Bodies longer than this (UTF-16 code units) enter the history as a
 * head/tail preview with their reference, never whole: 256 Ki characters,
 * about 64k tokens of ASCII (up to 256k of CJK), half of a 128k-token window.
 * A body that large cannot sit whole beside a turn in common windows, the
 * compactor would mask it at the first token pressure anyway, and kept whole
 * it would be copied into the session store and carried by every later turn.
 * Below it a body is kept whole, as the model usually wants a file or a
 * listing it asked for.
 */
export const INLINE_TOOL_OUTPUT_MAX_CHARS = 262_144;

export interface StoreToolResultOptions {
  readonly store: ToolOutputStore;
  readonly contextId: string;
  readonly call: Pick<ToolCall, 'id' | 'name'>;
  readonly outcome: ToolOutcome;
  /** Stops reading a streamed body; nothing is stored. */
  readonly signal?: AbortSignal;
  /** Default: `INLINE_TOOL_OUTPUT_MAX_CHARS`; never below the preview's head + tail + 1,000, so a preview (head, tail and a header of about 200 characters) is always shorter than its body. */
  readonly inlineMaxChars?: number;
  /** Head and tail of a preview. Default: `PREVIEW_DEFAULTS` (as the compactor's). */
  readonly preview?: PreviewOptions;
  /** How credentials in the body are marked (a run's vault numbers them). Default: plain markers. */
  readonly redaction?: RedactOptions;
  /** Told what was redacted from the body (kinds and counts, never a value), once it is stored; not called for a clean body. */
  readonly onRedacted?: (redactions: readonly CredentialRedaction[]) => void;
}

/**
 * Puts a tool result's full body in the store and returns the canonical
 * tool-result message that carries its reference: the only way the runtime
 * should turn an outcome into history, so every stored result stays
 * retrievable through `read_tool_output`. Credentials in the body, a success
 * or a failure, are redacted before anything holds it (the store, the
 * history, a preview); a streamed body is redacted as it streams (see
 * `CredentialStreamRedactor`). A streamed body (`outcome.stream`)
 * is stored as it arrives through the store's `putStream` (gathered for a
 * store without one); a stream that throws or yields a non-string is stored
 * as a `TOOL_HANDLER_FAILED` error result instead (nothing of it is kept).
 * A body over `inlineMaxChars` enters the history as a head/tail preview
 * (`masked: true`), so the history, the session store and every later turn
 * hold only the preview. Store failures and the signal's abort are thrown.
 */
export async function storeToolResult(options: StoreToolResultOptions): Promise<ToolResultMessage> {
  const { store, contextId, call, outcome, signal } = options;
  signal?.throwIfAborted();
  const preview = options.preview ?? PREVIEW_DEFAULTS;
  const inlineMaxChars = Math.max(options.inlineMaxChars ?? INLINE_TOOL_OUTPUT_MAX_CHARS, preview.headChars + preview.tailChars + 1_000);
  const tap = new BodyTap({ inlineMaxChars, preview });
  const identity = { contextId, toolCallId: call.id, toolName: call.name };
  let outputRef: ToolOutputRef;
  let redactions: readonly CredentialRedaction[];
  if (outcome.stream === undefined) {
    const redacted = typeof outcome.content === 'string' ? redactCredentials(outcome.content, options.redaction) : { text: outcome.content, redactions: [] };
    redactions = redacted.redactions;
    tap.take(redacted.text);
    outputRef = await store.put({ ...identity, body: redacted.text });
  } else {
    const redactor = new CredentialStreamRedactor(options.redaction);
    const body = tap.through('', redactedPieces(outcome.content, outcome.stream, redactor));
    try {
      outputRef = store.putStream !== undefined ? await store.putStream({ ...identity, body, signal }) : await store.put({ ...identity, body: await gatherToolOutput(body) });
    } catch (error) {
      if (tap.failure === undefined || signal?.aborted === true) throw error;
      return storeToolResult({ ...options, outcome: streamFailureOutcome(call.name, tap.failure.cause) });
    }
    redactions = redactor.redactions;
  }
  if (redactions.length > 0) options.onRedacted?.(redactions);
  const whole = tap.whole();
  return {
    role: 'tool',
    toolCallId: call.id,
    toolName: call.name,
    content: whole ?? tap.preview(outputRef),
    ...(outcome.isError === true ? { isError: true } : {}),
    outputRef,
    ...(whole === undefined ? { masked: true } : {}),
  };
}

/** An outcome's body whole: `content` then every chunk of `stream` (for an error text that must be redacted, or a store without `putStream`). */
export async function gatherToolOutput(outcome: Pick<ToolOutcome, 'content' | 'stream'> | AsyncIterable<string>): Promise<string> {
  const chunks = Symbol.asyncIterator in outcome ? outcome : outcome.stream;
  const parts: string[] = Symbol.asyncIterator in outcome ? [] : [outcome.content];
  if (chunks !== undefined) {
    for await (const chunk of chunks) parts.push(chunk);
  }
  return parts.join('');
}

/** `content` then the stream's pieces, through the redactor; a piece that is not a string is passed on for the tap to refuse. */
async function* redactedPieces(content: string, chunks: AsyncIterable<string>, redactor: CredentialStreamRedactor): AsyncGenerator<string> {
  const first = redactor.push(content);
  if (first !== '') yield first;
  if (typeof chunks?.[Symbol.asyncIterator] !== 'function') throw new TypeError('its stream is not an async iterable of strings');
  for await (const chunk of chunks) {
    if (typeof chunk !== 'string') {
      yield chunk;
      return;
    }
    const released = redactor.push(chunk);
    if (released !== '') yield released;
  }
  const rest = redactor.end();
  if (rest !== '') yield rest;
}

function streamFailureOutcome(tool: string, cause: unknown): ToolOutcome {
  const failed = toolErrorOutcome({ code: 'TOOL_HANDLER_FAILED', tool, message: `tool "${tool}" failed while streaming its output: ${describeThrown(cause)}` });
  // The message quotes what the stream threw, which may carry a credential.
  return { ...failed, content: redactCredentials(failed.content).text };
}

/**
 * Watches a body go by and keeps what the history needs: the whole text
 * while it is at most `inlineMaxChars`, past that only its head and tail.
 */
class BodyTap {
  readonly #inlineMaxChars: number;
  readonly #preview: PreviewOptions;
  #parts: string[] | undefined = [];
  #chars = 0;
  #head = '';
  /** The last `tailChars + 1` code units: one more, to see whether the tail's cut splits a pair. */
  #tail = '';

  constructor(options: { readonly inlineMaxChars: number; readonly preview: PreviewOptions }) {
    this.#inlineMaxChars = options.inlineMaxChars;
    this.#preview = options.preview;
  }

  take(chunk: string): void {
    this.#chars += chunk.length;
    const { headChars, tailChars } = this.#preview;
    if (this.#head.length < headChars) this.#head += chunk.slice(0, headChars - this.#head.length);
    this.#tail = (chunk.length > tailChars ? chunk.slice(-(tailChars + 1)) : this.#tail + chunk).slice(-(tailChars + 1));
    if (this.#parts === undefined) return;
    if (this.#chars <= this.#inlineMaxChars) this.#parts.push(chunk);
    else this.#parts = undefined;
  }

  /** Set when the tool's stream threw or yielded a non-string: a tool failure, not a store failure. */
  failure: { readonly cause: unknown } | undefined;

  /** `content` then the chunks, seen on their way to the store. */
  async *through(content: string, chunks: AsyncIterable<string>): AsyncGenerator<string> {
    if (content !== '') {
      this.take(content);
      yield content;
    }
    try {
      if (typeof chunks?.[Symbol.asyncIterator] !== 'function') throw new TypeError('its stream is not an async iterable of strings');
      for await (const chunk of chunks) {
        if (typeof chunk !== 'string') throw new TypeError(`its stream yielded a ${typeof chunk}, not a string`);
        this.take(chunk);
        yield chunk;
      }
    } catch (error) {
      this.failure = { cause: error };
      throw error;
    }
  }

  /** The whole body, or undefined when it was too long to keep. */
  whole(): string | undefined {
    return this.#parts?.join('');
  }

  /** The same head and tail `previewToolResult` cuts, copied so they keep no reference to the body. */
  preview(ref: ToolOutputRef): string {
    const { headChars, tailChars } = this.#preview;
    const head = this.#head.slice(0, isHighSurrogate(this.#head.charCodeAt(headChars - 1)) ? headChars - 1 : headChars);
    const window = this.#tail;
    // The window's first unit precedes the tail: a high surrogate there means the cut splits a pair.
    const tail = window.length <= tailChars ? window : window.slice(isHighSurrogate(window.charCodeAt(0)) ? 2 : 1);
    return formatToolResultPreview({ ref, head: detached(head), tail: detached(tail), omittedChars: this.#chars - head.length - tail.length });
  }
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/** A copy that shares no storage with the body it was sliced from (V8 slices keep their parent alive). */
function detached(text: string): string {
  return Buffer.from(text, 'utf16le').toString('utf16le');
}

/**
 * A host loop's tool result stored as a run stores its own (`storeToolResult`:
 * under a reference, credentials redacted): what the adapters give
 * `createHostLoopContext` as `storeResult`, so Strata inside a host's loop
 * keeps what its own loop keeps.
 */
export function hostToolResultStore(store: ToolOutputStore): (request: { readonly contextId: string; readonly result: ToolResultMessage; readonly signal?: AbortSignal }) => Promise<ToolResultMessage> {
  return ({ contextId, result, signal }) =>
    storeToolResult({ store, contextId, call: { id: result.toolCallId, name: result.toolName }, outcome: { content: result.content, ...(result.isError === true ? { isError: true } : {}) }, signal });
}
