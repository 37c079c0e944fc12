import { describeRedactions, interruptedResult, redactCredentialsDeep, untilAborted, type ContextDiagnostic, type CredentialRedaction, type CredentialVault, type ToolCall, type ToolOutcome, type ToolOutputStore, type ToolResultMessage } from '@strata/context';
import { storeToolResult, type ToolRegistry } from '@strata/tools';

export interface ToolDispatchOptions {
  readonly registry: ToolRegistry;
  readonly store: ToolOutputStore;
  readonly contextId: string;
  readonly calls: readonly ToolCall[];
  /** The run's signal (cancel, run deadline, idle timeout). */
  readonly signal: AbortSignal;
  readonly onResult?: (call: ToolCall, result: ToolResultMessage, data: unknown) => void;
  readonly onDiagnostic?: (diagnostic: ContextDiagnostic) => void;
  /**
   * The run's vault when its tools must see real values (`redactToolOutputs:
   * false`): results are marked with its numbered markers, and a call's
   * arguments get their values back before the handler runs. Default: none.
   */
  readonly vault?: CredentialVault;
}

export interface ToolDispatchOutcome {
  /** One result per call, in call order; calls that did not finish have an "interrupted" result. */
  readonly results: readonly ToolResultMessage[];
  /** Set when the signal aborted before every call finished. */
  readonly aborted: boolean;
}

/**
 * Runs one assistant turn's calls (consecutive concurrency-safe calls
 * together, every other call alone, results in declared order) and stores
 * each result as it finishes, so each carries its `read_tool_output`
 * reference. Every handler is raced with the run's signal: a handler that
 * ignores its abort cannot hold the run past a cancel or a deadline; its
 * late result is discarded with a diagnostic. Credentials in every result,
 * success or failure, and in its `data` are redacted before they are stored
 * or reach the run's lanes (a diagnostic names the kinds and counts, never a
 * value). A streamed result is stored as it
 * arrives (its reading is raced with the signal like the handler) and a
 * large one enters the history as a preview (see `storeToolResult`).
 */
export async function dispatchToolCalls(options: ToolDispatchOptions): Promise<ToolDispatchOutcome> {
  const { registry, calls, signal } = options;
  const results: Array<ToolResultMessage | undefined> = calls.map(() => undefined);
  let index = 0;
  try {
    while (index < calls.length) {
      let end = index + 1;
      if (registry.isConcurrencySafe(calls[index]!.name)) {
        while (end < calls.length && registry.isConcurrencySafe(calls[end]!.name)) end += 1;
      }
      const group = calls.slice(index, end).map(async (call, offset) => {
        results[index + offset] = await runCall(options, call);
      });
      await untilAborted(Promise.all(group), signal);
      index = end;
    }
    return { results: results as ToolResultMessage[], aborted: false };
  } catch (error) {
    if (!signal.aborted) throw error;
    const closed = calls.map((call, position) => {
      const result = results[position];
      if (result) return result;
      options.onDiagnostic?.({
        code: 'AGENT_TOOL_RESULT_DISCARDED',
        severity: 'warning',
        subject: call.id,
        message: `tool "${call.name}" (call ${call.id}) had not finished when the run stopped (${describe(signal.reason)}); it is recorded as interrupted and any late result is discarded`,
      });
      return interruptedResult(call.id, call.name);
    });
    return { results: closed, aborted: true };
  }
}

async function runCall(options: ToolDispatchOptions, call: ToolCall): Promise<ToolResultMessage> {
  const { vault } = options;
  const executed = await options.registry.execute(vault === undefined ? call : { ...call, input: vault.restoreDeep(call.input) }, { contextId: options.contextId, signal: options.signal });
  // A result finished after the abort is not stored: the step closes with "interrupted" instead.
  options.signal.throwIfAborted();
  const data = redactCredentialsDeep(executed.data, { vault });
  const outcome = data.value === executed.data ? executed : { ...executed, data: data.value };
  let body: readonly CredentialRedaction[] = [];
  const result = await storeToolResult({ store: options.store, contextId: options.contextId, call, outcome, signal: options.signal, redaction: { vault }, onRedacted: (redactions) => (body = redactions) });
  const found = [...body, ...data.redactions];
  if (found.length > 0) {
    options.onDiagnostic?.({
      code: 'AGENT_CREDENTIALS_REDACTED',
      severity: 'warning',
      subject: call.id,
      message: `the ${result.isError === true ? 'error' : 'output'} of tool "${call.name}" (call ${call.id}) carried credentials (${describeRedactions(body.length > 0 ? body : data.redactions)}); they were redacted before it was stored`,
    });
  }
  options.onResult?.(call, result, outcome.data);
  return result;
}

function describe(reason: unknown): string {
  return reason instanceof Error ? reason.message : String(reason);
}
