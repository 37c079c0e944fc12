import type { ToolCall, ToolOutcome, ToolOutputStore, ToolResultMessage } from '@strata/context';

export interface StoreToolResultOptions {
  readonly store: ToolOutputStore;
  readonly contextId: string;
  readonly call: Pick<ToolCall, 'id' | 'name'>;
  readonly outcome: ToolOutcome;
  readonly signal?: AbortSignal;
}

/**
 * Puts a tool result's full body in the store and returns the canonical
 * tool-result message that carries its reference: the only way the runtime
 * should turn an outcome into history, so every stored result stays
 * retrievable through `read_tool_output`.
 */
export async function storeToolResult(options: StoreToolResultOptions): Promise<ToolResultMessage> {
  const { store, contextId, call, outcome } = options;
  options.signal?.throwIfAborted();
  const outputRef = await store.put({ contextId, toolCallId: call.id, toolName: call.name, body: outcome.content });
  return {
    role: 'tool',
    toolCallId: call.id,
    toolName: call.name,
    content: outcome.content,
    ...(outcome.isError === true ? { isError: true } : {}),
    outputRef,
  };
}
