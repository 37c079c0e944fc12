import type { ToolOutputStore } from '@strata/context';
import { readToolOutput } from './read-tool-output.js';

export interface SearchContextOutputsOptions {
  readonly store: ToolOutputStore;
  readonly contextId: string;
  /** Literal text to find. */
  readonly query: string;
  readonly ignoreCase: boolean;
  /** Bound of the whole answer, header included, in UTF-16 code units (at least 1,000). */
  readonly maxChars: number;
  readonly contextLines: number;
  readonly signal: AbortSignal;
}

export type SearchContextOutputsAnswer =
  | { readonly ok: true; readonly content: string; readonly shown: readonly string[]; readonly more: readonly string[]; readonly searched: number }
  | { readonly ok: false; readonly message: string };

/** The most of the answer one output's matches may use, so several outputs fit. */
const OUTPUT_SHARE = 4;
/** What `readToolOutput` needs at least for one output's matches. */
const MIN_OUTPUT_CHARS = 1_000;
/** Room kept for the line listing the matching outputs that did not fit. */
const MORE_LINE_CHARS = 400;

/**
 * `read_tool_output` with a query and no reference: every output stored for
 * the context, newest first, searched for the literal query. The answer
 * shows the matches of as many outputs as fit (each as `read_tool_output`
 * would answer that reference and query, so its header gives the arguments
 * to read on) and names the other matching references. This is how a result
 * the window dropped stays one query away. It reads the bodies one at a
 * time: memory is bounded by the largest body, time by the context's
 * stored outputs.
 */
export async function searchContextOutputs(options: SearchContextOutputsOptions): Promise<SearchContextOutputsAnswer> {
  const { store, contextId, query, ignoreCase, maxChars, contextLines, signal } = options;
  if (!store.list) return { ok: false, message: 'this store cannot list its outputs: give the ref of the output to search' };
  const entries = [...(await store.list(contextId))].reverse();
  const needle = ignoreCase ? query.toLowerCase() : query;
  const perOutput = Math.max(MIN_OUTPUT_CHARS, Math.floor(maxChars / OUTPUT_SHARE));
  const parts: string[] = [];
  const shown: string[] = [];
  const more: string[] = [];
  const quoted = JSON.stringify(query);
  // The header: about 200 characters besides the query.
  let used = 200 + quoted.length;
  for (const entry of entries) {
    signal.throwIfAborted();
    const stored = await store.get(entry.refId);
    if (stored === undefined || stored.contextId !== contextId) continue;
    if (!(ignoreCase ? stored.body.toLowerCase() : stored.body).includes(needle)) continue;
    const room = maxChars - MORE_LINE_CHARS - used;
    if (more.length > 0 || room < MIN_OUTPUT_CHARS) {
      more.push(entry.refId);
      continue;
    }
    const answer = readToolOutput({ body: stored.body, arguments: { ref: entry.refId, query, ...(ignoreCase ? { ignoreCase } : {}) }, maxChars: Math.min(perOutput, room), contextLines });
    if (!answer.ok) return { ok: false, message: answer.message };
    const part = `(${entry.toolName}, call ${entry.toolCallId})\n${answer.content}`;
    parts.push(part);
    shown.push(entry.refId);
    used += part.length + 1;
  }
  const found = shown.length + more.length;
  const header =
    found === 0
      ? `[read_tool_output search ${quoted}${ignoreCase ? ' (ignoring case)' : ''}: no match in the ${entries.length} stored output${entries.length === 1 ? '' : 's'} of this context]`
      : `[read_tool_output search ${quoted}${ignoreCase ? ' (ignoring case)' : ''}: found in ${found} of ${entries.length} stored outputs of this context, newest first; showing ${shown.length}; read on with the ref and query in each part's header]`;
  const listed: string[] = [];
  let listedChars = 0;
  for (const ref of more) {
    if (listedChars + ref.length + 2 > MORE_LINE_CHARS - 40) break;
    listed.push(ref);
    listedChars += ref.length + 2;
  }
  const tail = more.length === 0 ? '' : `\nalso found in: ${listed.join(', ')}${listed.length < more.length ? ` and ${more.length - listed.length} more` : ''}`;
  return { ok: true, content: [header, ...parts].join('\n') + tail, shown, more, searched: entries.length };
}
