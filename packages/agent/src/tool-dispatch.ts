import type { ToolCall, ToolOutputStore, ToolResultMessage } from '@strata/context';
import { storeToolResult, type ToolRegistry } from '@strata/tools';

/**
 * Runs one assistant turn's calls through the registry (concurrency-safe
 * calls together, results in the order the model declared them) and stores
 * every result, so each carries its `read_tool_output` reference.
 */
export async function dispatchToolCalls(options: {
  registry: ToolRegistry;
  store: ToolOutputStore;
  contextId: string;
  calls: readonly ToolCall[];
  signal: AbortSignal;
  onResult?: (call: ToolCall, result: ToolResultMessage, data: unknown) => void;
}): Promise<ToolResultMessage[]> {
  const outcomes = await options.registry.executeBatch(options.calls, { contextId: options.contextId, signal: options.signal });
  const results: ToolResultMessage[] = [];
  for (const [index, call] of options.calls.entries()) {
    const outcome = outcomes[index]!;
    const result = await storeToolResult({ store: options.store, contextId: options.contextId, call, outcome });
    options.onResult?.(call, result, outcome.data);
    results.push(result);
  }
  return results;
}
