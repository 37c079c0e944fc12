// What the gateway reports of one client request, for OpenTelemetry. The events are those of an agent run that a
// request has (the same shapes as @strata/agent's `AgentEvent`), so `createAgentTelemetry` records a request as it
// records a run: one trace per client request (its root span), a child per upstream call (the calls after a
// `read_tool_output` too) with gen_ai.request/response/usage, the gateway's reads as `execute_tool` spans below their
// call, compaction as the event `gen_ai.conversation.compacted`. The gateway imports no telemetry SDK; the CLI wires it.
import type { ContextTraceV5, HostLoopUsage, ToolCall, ToolResultMessage } from '@strata/context';
import type { ModelFinishReason, ModelResponseMetadata, ModelUsage } from '@strata/model';

/** Why a request ended: answered, the upstream failed or gave an error, the window could not hold what must be kept, the client left, the gateway failed. */
export type GatewayStopReason = 'completed' | 'model-error' | 'context-error' | 'cancelled' | 'runtime-error';

/** One request's events, in order: per upstream call `turn-start`, `context-assembled`, `usage`, its reads, `turn-end`; then `run-end`. */
export type GatewayEvent =
  | { readonly type: 'turn-start'; readonly turn: number }
  | { readonly type: 'context-assembled'; readonly turn: number; readonly trace: ContextTraceV5 }
  | { readonly type: 'usage'; readonly usage: ModelUsage; readonly finishReason?: ModelFinishReason; readonly response?: ModelResponseMetadata }
  | { readonly type: 'tool-call-start'; readonly call: ToolCall }
  | { readonly type: 'tool-call-end'; readonly call: ToolCall; readonly result: ToolResultMessage }
  | { readonly type: 'turn-end'; readonly turn: number }
  | { readonly type: 'run-end'; readonly stopReason: GatewayStopReason };

/** What a request's events go to (`createAgentTelemetry` of @strata/agent is one). */
export interface GatewayRequestTelemetry {
  readonly onEvent: (event: GatewayEvent) => void;
  /** Ends what is still open (after `run-end`: nothing). */
  end(): void;
}

/** The request a telemetry is started for, once its context is known (before its first upstream call). */
export interface GatewayTelemetryRequest {
  /** The upstream's API: `anthropic` for `/v1/messages`, else `openai`. */
  readonly provider: 'openai' | 'anthropic';
  /** The model the request names (`unknown` when it names none). */
  readonly model: string;
  readonly contextId: string;
}

/** Starts one client request's telemetry. Never allowed to change the request's outcome: what it throws is ignored. */
export type GatewayTelemetry = (request: GatewayTelemetryRequest) => GatewayRequestTelemetry;

/** A numeric usage as a model's usage: what is not a count is left out. */
export function modelUsageOf(usage: HostLoopUsage): ModelUsage {
  const count = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined);
  return { inputTokens: count(usage.inputTokens), outputTokens: count(usage.outputTokens), cachedInputTokens: count(usage.cachedInputTokens), cacheWriteInputTokens: count(usage.cacheWriteInputTokens) };
}

/** Why an answer with `calls` calls stopped, from its stop field in any of the three APIs (`finish_reason`, `stop_reason`, `status`). */
export function finishReasonOf(completion: Record<string, unknown>, calls: number): ModelFinishReason {
  if (calls > 0) return 'tool-calls';
  const choices = Array.isArray(completion.choices) ? (completion.choices as Array<Record<string, unknown> | null>) : [];
  const stop = choices[0]?.finish_reason ?? completion.stop_reason ?? completion.status;
  if (stop === 'length' || stop === 'max_tokens' || stop === 'incomplete') return 'length';
  if (stop === 'content_filter' || stop === 'refusal') return 'content-filter';
  return 'stop';
}

/** The provider's response id and the model that answered, where the answer names them (all three APIs: `id`, `model`). */
export function responseMetadataOf(completion: Record<string, unknown>): ModelResponseMetadata {
  return { id: typeof completion.id === 'string' ? completion.id : undefined, modelId: typeof completion.model === 'string' ? completion.model : undefined };
}
