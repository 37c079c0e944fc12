import type { ContextDiagnostic } from './contributor.js';
import type { CanonicalMessage, ToolResultMessage } from './messages.js';
import type { ToolOutputStore } from './ports.js';

/**
 * Checks, before a model call, that every stored-output reference the input
 * points the model at can be read back from that context's store, so the
 * model is never told to read something it cannot. A reference is checked
 * once and kept in `known` (the context's confirmed references) while it
 * resolves; stored outputs are never deleted under a running context.
 */
export class OutputReferenceCheck {
  private readonly store: ToolOutputStore;

  constructor(store: ToolOutputStore) {
    this.store = store;
  }

  /** The messages with each unreadable pointer replaced by a note, and a diagnostic per replacement. */
  async check(contextId: string, messages: readonly CanonicalMessage[], known: Set<string>): Promise<{ messages: readonly CanonicalMessage[]; diagnostics: ContextDiagnostic[] }> {
    const pointers = messages.filter((message): message is ToolResultMessage => message.role === 'tool' && message.masked === true && message.outputRef !== undefined && !known.has(message.outputRef.id));
    if (pointers.length === 0) return { messages, diagnostics: [] };
    const readable = await Promise.all(pointers.map(async (message) => (await this.store.get(message.outputRef!.id))?.contextId === contextId));
    const unreadable = new Set<CanonicalMessage>();
    pointers.forEach((message, index) => (readable[index] ? known.add(message.outputRef!.id) : unreadable.add(message)));
    if (unreadable.size === 0) return { messages, diagnostics: [] };
    const diagnostics: ContextDiagnostic[] = [];
    const checked = messages.map((message) => {
      if (!unreadable.has(message)) return message;
      const result = message as ToolResultMessage;
      diagnostics.push({ code: 'CONTEXT_OUTPUT_REF_UNREADABLE', severity: 'warning', subject: result.outputRef!.id, message: `stored output "${result.outputRef!.id}" of call "${result.toolCallId}" cannot be read back from context "${contextId}"; its preview is sent without the pointer` });
      return unreadablePreview(result);
    });
    return { messages: checked, diagnostics };
  }
}

/** The preview with its read instructions replaced by a note that the body is gone; never longer than before. */
function unreadablePreview(result: ToolResultMessage): ToolResultMessage {
  const header = result.content.indexOf(']\n');
  const rest = header >= 0 ? result.content.slice(header + 2) : result.content;
  const { outputRef: _gone, ...withoutRef } = result;
  return { ...withoutRef, content: `[the full output is no longer stored; only this head and tail remain]\n${rest}` };
}
