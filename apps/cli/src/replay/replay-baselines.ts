// The peer strategies a replay is compared against, turn by turn over the
// same recorded run: the whole history, SWE-agent's observation masking and
// Anthropic's clear_tool_uses edit. Each gives the request every model call
// of the recording would have sent; none stores what it removes, so none
// can bring it back.
import type { CanonicalHistory, CanonicalMessage, ToolResultMessage } from '@strata/context';
import { modelCallIndexes } from './replay-trajectory.js';

export interface BaselineTurn {
  /** Index in the trajectory of the assistant message this call produced. */
  readonly trajectoryIndex: number;
  readonly messages: readonly CanonicalMessage[];
  /** True when this request rewrote a message an earlier request had sent whole. */
  readonly compacted: boolean;
}

/** Every call sends the whole history before it. */
export function rawRequests(trajectory: CanonicalHistory): BaselineTurn[] {
  return modelCallIndexes(trajectory).map((end) => ({ trajectoryIndex: end, messages: trajectory.slice(0, end), compacted: false }));
}

/**
 * SWE-agent's observation masking: every tool result but the last `keep`
 * (default 5) is replaced by a one-line note of how many lines it had.
 */
export function lastNMaskingRequests(trajectory: CanonicalHistory, options: { readonly keep?: number } = {}): BaselineTurn[] {
  const keep = options.keep ?? 5;
  const notes = new Map<CanonicalMessage, CanonicalMessage>();
  return modelCallIndexes(trajectory).map((end) => {
    const prefix = trajectory.slice(0, end);
    const results = prefix.filter((message) => message.role === 'tool');
    const masked = new Set<CanonicalMessage>(results.slice(0, Math.max(0, results.length - keep)));
    let compacted = false;
    const messages = prefix.map((message) => {
      if (!masked.has(message) || message.role !== 'tool') return message;
      let note = notes.get(message);
      if (!note) {
        notes.set(message, (note = { ...message, content: `Old environment output: (${message.content.split('\n').length} lines omitted)` }));
        compacted = true;
      }
      return note;
    });
    return { trajectoryIndex: end, messages, compacted };
  });
}

export interface ClearToolUsesOptions {
  /** Input tokens past which results are cleared (Anthropic's `trigger`). */
  readonly triggerTokens: number;
  /** Tool results kept whole, the newest ones (Anthropic's `keep`). Default 3. */
  readonly keep?: number;
  readonly countMessage: (message: CanonicalMessage) => number;
}

/** What a cleared result reads, as Anthropic's placeholder tells the model a result was removed. */
export const CLEARED_TOOL_RESULT = '[tool result cleared]';

/**
 * Anthropic's `clear_tool_uses_20250919` context edit with its documented
 * defaults, as LangChain's `ClearToolUsesEdit` reproduces it. The client
 * sends its whole history; when that request is past the trigger, every
 * tool result but the newest `keep` is replaced by a placeholder: not only
 * as many as bring it back under the trigger. Only results are cleared
 * (`clear_tool_inputs` false), no tool is excluded, and no `clear_at_least`
 * is set (it has no default). Each request is decided on the whole history
 * before it, so once past the trigger every later request clears too.
 *
 * Sources: platform.claude.com/docs/en/build-with-claude/context-editing
 * (`trigger`: once the prompt exceeds it, clearing begins; `keep`: the recent
 * tool use/result pairs kept after clearing, default 3, the oldest cleared
 * first); langchain-ai/langchainjs libs/langchain/src/agents/middleware/
 * contextEditing.ts (`ClearToolUsesEdit.apply`: when the trigger is met, every
 * ToolMessage but the last `keep` becomes the placeholder, on each model call's
 * copy of the messages).
 */
export function clearToolUsesRequests(trajectory: CanonicalHistory, options: ClearToolUsesOptions): BaselineTurn[] {
  const keep = options.keep ?? 3;
  // One placeholder message per cleared result, so a result cleared once is the same bytes in every later request.
  const cleared = new Map<CanonicalMessage, CanonicalMessage>();
  // Running count of the whole history (each message counted once) and the tool results in it, oldest first.
  let counted = 0;
  let total = 0;
  const results: ToolResultMessage[] = [];
  return modelCallIndexes(trajectory).map((end) => {
    for (; counted < end; counted += 1) {
      const message = trajectory[counted]!;
      total += options.countMessage(message);
      if (message.role === 'tool') results.push(message);
    }
    let compacted = false;
    if (total > options.triggerTokens) {
      for (const message of results.slice(0, Math.max(0, results.length - keep))) {
        if (cleared.has(message)) continue;
        // Its body and media go; the call it answers and whether it failed stay.
        cleared.set(message, { role: 'tool', toolCallId: message.toolCallId, toolName: message.toolName, content: CLEARED_TOOL_RESULT, isError: message.isError });
        compacted = true;
      }
    }
    return { trajectoryIndex: end, messages: trajectory.slice(0, end).map((message) => cleared.get(message) ?? message), compacted };
  });
}
