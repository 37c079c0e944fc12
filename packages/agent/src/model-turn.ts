import type { AssembledTurn, AssistantMessage, ContextAssembler, TurnRequest } from '@strata/context';
import { ContextOverflowError, type ModelCallError, type ModelClient, type ModelEvent, type ModelUsage } from '@strata/model';

type StreamOutcome =
  | { readonly type: 'finish'; readonly message: AssistantMessage; readonly usage: ModelUsage }
  | { readonly type: 'error'; readonly error: ModelCallError }
  | { readonly type: 'aborted'; readonly reason: unknown; readonly timedOut: boolean };

export type ModelTurnOutcome = StreamOutcome & { readonly assembled: AssembledTurn };

export interface ModelTurnOptions {
  readonly assembler: ContextAssembler;
  readonly client: ModelClient;
  readonly request: TurnRequest;
  readonly onEvent?: (event: ModelEvent) => void;
  /** Called with each assembled turn (the first, and the recovery one). */
  readonly onAssembled?: (assembled: AssembledTurn) => Promise<void> | void;
  readonly onRecovery?: (attempt: number) => void;
}

async function streamOnce(client: ModelClient, assembled: AssembledTurn, request: TurnRequest, onEvent?: (event: ModelEvent) => void): Promise<StreamOutcome> {
  for await (const event of client.stream({ messages: assembled.input.messages, tools: assembled.input.tools, ...(request.signal ? { signal: request.signal } : {}) })) {
    onEvent?.(event);
    if (event.type === 'finish') return { type: 'finish', message: event.message, usage: event.usage };
    if (event.type === 'error') return { type: 'error', error: event.error };
    if (event.type === 'aborted') return { type: 'aborted', reason: event.reason, timedOut: event.timedOut };
  }
  throw new Error('the model client ended its stream without finish, error or aborted');
}

/**
 * One LLM turn with overflow recovery: when the provider still rejects the
 * request for context-window overflow, the assembler runs one forced
 * pressure pass and the same turn is retried exactly once. A second overflow
 * is returned to the caller; there is no retry loop.
 */
export async function runModelTurn(options: ModelTurnOptions): Promise<ModelTurnOutcome> {
  const { assembler, client, request } = options;
  let assembled = await assembler.assemble(request);
  await options.onAssembled?.(assembled);
  const first = await streamOnce(client, assembled, request, options.onEvent);
  if (first.type !== 'error' || !ContextOverflowError.isInstance(first.error)) return { ...first, assembled };

  options.onRecovery?.(1);
  assembled = await assembler.assemble({ ...request, history: assembled.history, recovery: { reason: `context overflow: ${first.error.message}`, attempt: 1 } });
  await options.onAssembled?.(assembled);
  const second = await streamOnce(client, assembled, request, options.onEvent);
  return { ...second, assembled };
}
