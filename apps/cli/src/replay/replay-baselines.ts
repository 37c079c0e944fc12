// The peer strategies a replay is compared against, turn by turn over the
// same recorded run: the whole history, SWE-agent's observation masking and
// Anthropic's clear_tool_uses edit. Each gives the request every model call
// of the recording would have sent; none stores what it removes, so none
// can bring it back.
import type { CanonicalHistory, CanonicalMessage } from '@strata/context';
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

/**
 * Anthropic's `clear_tool_uses` context edit: once a request passes the
 * trigger, the oldest tool results (all but the newest `keep`) are replaced
 * by a placeholder until it is under the trigger again; cleared stays cleared.
 */
export function clearToolUsesRequests(trajectory: CanonicalHistory, options: ClearToolUsesOptions): BaselineTurn[] {
  const keep = options.keep ?? 3;
  const cleared = new Map<CanonicalMessage, CanonicalMessage>();
  return modelCallIndexes(trajectory).map((end) => {
    const prefix = trajectory.slice(0, end);
    let total = prefix.reduce((sum, message) => sum + options.countMessage(cleared.get(message) ?? message), 0);
    let compacted = false;
    if (total > options.triggerTokens) {
      const results = prefix.filter((message) => message.role === 'tool' && !cleared.has(message));
      for (const message of results.slice(0, Math.max(0, results.length - keep))) {
        if (total <= options.triggerTokens) break;
        const replacement: CanonicalMessage = { ...message, content: '[tool result cleared]' } as CanonicalMessage;
        cleared.set(message, replacement);
        total += options.countMessage(replacement) - options.countMessage(message);
        compacted = true;
      }
    }
    return { trajectoryIndex: end, messages: prefix.map((message) => cleared.get(message) ?? message), compacted };
  });
}
