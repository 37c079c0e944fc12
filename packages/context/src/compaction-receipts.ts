import type { WindowStartMark } from './context-state.js';
import { messageFingerprint } from './message-fingerprint.js';
import type { CanonicalMessage } from './messages.js';
import { OUTPUT_INDEX_TAG } from './output-index.js';

/** What left the window: a tool result, an assistant message (with the calls it made), or another message. */
export type CompactionReceiptItem =
  | { readonly kind: 'tool-result'; readonly index: number; readonly toolName: string; readonly toolCallId: string }
  | { readonly kind: 'tool-call'; readonly index: number; readonly calls: ReadonlyArray<{ readonly toolName: string; readonly toolCallId: string }> }
  | { readonly kind: 'message'; readonly index: number; readonly role: CanonicalMessage['role'] };

/** Where an item that left now lives. */
export type CompactionReceiptLocation =
  /** The full body is stored; the window shows a head/tail preview with this reference. */
  | { readonly kind: 'output-ref'; readonly ref: string }
  /** Summarized into the resident checkpoint (its message fingerprint); a stored body keeps its reference. */
  | { readonly kind: 'checkpoint'; readonly checkpointId: string; readonly ref: string | null }
  /** Dropped by the window: the full body is stored, and the window's index of earlier outputs (`<earlier_outputs>`) lists this reference. */
  | { readonly kind: 'output-index'; readonly ref: string };

/**
 * One item a compaction took out of the window, and how to get it back.
 * `index` is the item's place in the history the compaction was asked to compact.
 */
export interface CompactionReceipt {
  readonly item: CompactionReceiptItem;
  /**
   * `masked`: body replaced by a preview; `summarized`: replaced by the
   * checkpoint; `windowed`: its step dropped by the window cut, listed by
   * reference in `<earlier_outputs>`.
   */
  readonly action: 'masked' | 'summarized' | 'windowed';
  /** The item's tokens before it left, counted as the pass counted. */
  readonly tokensBefore: number;
  /**
   * Its tokens after (the preview's; 0 when summarized: the checkpoint's
   * tokens are in `checkpointTokens`; 0 when windowed: the index's tokens are
   * in the window's `usedTokens`).
   */
  readonly tokensAfter: number;
  readonly location: CompactionReceiptLocation;
  /** The tool call that reads it back byte-exact, or null when only the checkpoint's summary remains. */
  readonly retrieve: string | null;
}

/** The call that reads a stored output back whole: `read_tool_output({"ref":"..."})`. */
export function readBackCall(ref: string): string {
  return `read_tool_output(${JSON.stringify({ ref })})`;
}

/** What `message` at `index` was, for a receipt. */
export function receiptItem(message: CanonicalMessage, index: number): CompactionReceiptItem {
  if (message.role === 'tool') return { kind: 'tool-result', index, toolName: message.toolName, toolCallId: message.toolCallId };
  if (message.role === 'assistant' && message.toolCalls && message.toolCalls.length > 0) {
    return { kind: 'tool-call', index, calls: message.toolCalls.map((call) => ({ toolName: call.name, toolCallId: call.id })) };
  }
  return { kind: 'message', index, role: message.role };
}

/** The receipt of a stored body replaced by its preview. */
export function maskedReceipt(message: CanonicalMessage & { role: 'tool' }, index: number, tokensBefore: number, tokensAfter: number): CompactionReceipt {
  const ref = message.outputRef!.id;
  return { item: receiptItem(message, index), action: 'masked', tokensBefore, tokensAfter, location: { kind: 'output-ref', ref }, retrieve: readBackCall(ref) };
}

/** The receipt of a message summarized into the checkpoint `checkpointId`. */
export function summarizedReceipt(message: CanonicalMessage, index: number, tokensBefore: number, checkpointId: string): CompactionReceipt {
  const ref = message.role === 'tool' && message.outputRef ? message.outputRef.id : null;
  return { item: receiptItem(message, index), action: 'summarized', tokensBefore, tokensAfter: 0, location: { kind: 'checkpoint', checkpointId, ref }, retrieve: ref === null ? null : readBackCall(ref) };
}

/** A receipt as one line of text: what, tokens, where, how back. */
export function describeReceipt(receipt: CompactionReceipt): string {
  const { item } = receipt;
  const what =
    item.kind === 'tool-result'
      ? `tool result ${item.toolName} (${item.toolCallId})`
      : item.kind === 'tool-call'
        ? `tool call ${item.calls.map((call) => `${call.toolName} (${call.toolCallId})`).join(', ')}`
        : `${item.role} message`;
  const { location } = receipt;
  const where = location.kind === 'output-ref' ? `ref ${location.ref}` : location.kind === 'output-index' ? `ref ${location.ref}, listed in <${OUTPUT_INDEX_TAG}>` : `checkpoint ${location.checkpointId}`;
  return `#${item.index} ${what} ${receipt.action}: ${receipt.tokensBefore} -> ${receipt.tokensAfter} tokens, in ${where}${receipt.retrieve ? `; back: ${receipt.retrieve}` : ''}`;
}

/** The receipt with its item at `index`. */
export function reindexed(receipt: CompactionReceipt, index: number): CompactionReceipt {
  return receipt.item.index === index ? receipt : { ...receipt, item: { ...receipt.item, index } };
}

/** The receipt of a stored output whose step the window dropped, listed by reference in its index of earlier outputs. */
export function windowedReceipt(message: CanonicalMessage & { role: 'tool' }, index: number, tokensBefore: number): CompactionReceipt {
  const ref = message.outputRef!.id;
  return { item: receiptItem(message, index), action: 'windowed', tokensBefore, tokensAfter: 0, location: { kind: 'output-index', ref }, retrieve: readBackCall(ref) };
}

/**
 * The receipts of a window cut: one per stored output that left the window
 * at this turn and is listed in `<earlier_outputs>`, in history order
 * (`index`: its place in `history`, the composed history the window was cut
 * from; tokens by `count`, as the window counted). Read from what the window
 * returns: the references its index message lists (an output the index
 * omits past its bound is found by searching, and has none). An output left
 * at this turn when `previousStart` (where the previous turn's window began)
 * shows it was sent then: at or after that start, or in a unit kept before
 * it; with no previous start, or one this history no longer holds at its
 * place (a compaction moved it), every listed output has its receipt. So a
 * long run records each departure once, not every turn. Costs the index's
 * text and, given a previous start, the history from it and the units kept
 * before it (else one pass over `history`); empty when the window listed none.
 */
export function windowReceipts(options: {
  readonly history: readonly CanonicalMessage[];
  readonly window: readonly CanonicalMessage[];
  readonly count: (message: CanonicalMessage) => number;
  readonly previousStart?: WindowStartMark | undefined;
}): CompactionReceipt[] {
  const opening = `<${OUTPUT_INDEX_TAG} `;
  const listing = options.window.find((message) => message.role === 'user' && message.content.startsWith(opening));
  if (listing === undefined || listing.role !== 'user') return [];
  const listed = new Set(Array.from(listing.content.matchAll(/ref="([^"]+)"/g), (match) => match[1]!));
  if (listed.size === 0) return [];
  const { history } = options;
  const at = (mark: { readonly index: number; readonly fingerprint: string }) => mark.index >= 0 && mark.index < history.length && messageFingerprint(history[mark.index]!) === mark.fingerprint;
  const previous = options.previousStart !== undefined && at(options.previousStart) ? options.previousStart : undefined;
  // The unit starts the previous window kept before its start (only those still at their place).
  const keptBefore = new Set((previous?.before ?? []).filter(at).map((mark) => mark.index));
  const kept = new Set(options.window);
  const receipts: CompactionReceipt[] = [];
  const consider = (index: number): void => {
    const message = history[index]!;
    if (message.role !== 'tool' || message.outputRef === undefined || !listed.has(message.outputRef.id) || kept.has(message)) return;
    receipts.push(windowedReceipt(message, index, options.count(message)));
  };
  if (previous === undefined) {
    for (let index = 0; index < history.length; index += 1) consider(index);
    return receipts;
  }
  // Before the previous start, only the results of the units kept before it (a unit starts at the call before its
  // results: the nearest message that is not a result, or the first), so a turn walks its window, not the history.
  for (const start of [...keptBefore].sort((left, right) => left - right)) {
    if (start >= previous.index || (start > 0 && history[start]!.role === 'tool')) continue;
    consider(start);
    for (let index = start + 1; index < previous.index && history[index]!.role === 'tool'; index += 1) consider(index);
  }
  for (let index = previous.index; index < history.length; index += 1) consider(index);
  return receipts;
}
