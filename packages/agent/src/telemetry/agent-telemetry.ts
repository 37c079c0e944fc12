// OpenTelemetry spans from a run's events and the assembler's stage hook:
// one trace per run. Its root span is the run (GenAI `invoke_agent`); each
// model turn is a child (`chat`: assembly, the model call and the tool calls
// its answer asked for, with gen_ai.response.* and gen_ai.usage.*); below a
// turn, a span per pipeline stage and per tool call (`execute_tool`), and each
// compaction as the event `gen_ai.conversation.compacted`. Spans carry figures
// and identifiers; prompt text, tool input and tool output only with
// `captureContent`.
import { context, SpanKind, SpanStatusCode, trace, type Attributes, type Span, type Tracer } from '@opentelemetry/api';
import { ConfigurationError, type ContextStageEvent, type ContextTraceV5 } from '@strata/context';
import type { AgentEvent } from '../agent-events.js';

export interface AgentTelemetryOptions {
  readonly tracer: Tracer;
  /** `gen_ai.provider.name` and `gen_ai.request.model` of every turn span. */
  readonly provider: string;
  readonly model: string;
  readonly contextId: string;
  /** `gen_ai.agent.name` of the run's root span. Default: none. */
  readonly agentName?: string;
  /** Record messages, tool arguments and tool results on spans. Default false: never content. */
  readonly captureContent?: boolean;
  /**
   * Called at most once, with one line, when recording a span failed; the
   * failure never reaches the run. Default: ignore.
   */
  readonly warn?: (line: string) => void;
  /** Converts the assembler's clock (default performance.now) to epoch milliseconds. Default: performance.timeOrigin + value. */
  readonly toEpochMs?: (clockMs: number) => number;
}

export interface AgentTelemetry {
  /** Pass as the run's `onEvent` (or call from it). */
  readonly onEvent: (event: AgentEvent) => void;
  /** Pass as the assembler's `onStage` (`AgentBindings.onStage`). */
  readonly onStage: (event: ContextStageEvent) => void;
  /** Ends any span still open, the run's root last (a run that threw, or after `run-end`: a no-op). */
  end(): void;
}

export function createAgentTelemetry(options: AgentTelemetryOptions): AgentTelemetry {
  if (typeof (options as Partial<AgentTelemetryOptions> | null | undefined)?.tracer?.startSpan !== 'function') {
    throw new ConfigurationError({ setting: 'tracer', message: 'createAgentTelemetry: options.tracer must be an OpenTelemetry Tracer (with startSpan)' });
  }
  const { tracer } = options;
  const toEpoch = options.toEpochMs ?? ((clockMs: number) => performance.timeOrigin + clockMs);
  let turnSpan: Span | undefined;
  const toolSpans = new Map<string, Span>();
  const totals = { input: 0, output: 0 };
  // The run's root span, started with the telemetry (the run starts right after); the parent of every turn.
  let runSpan: Span | undefined = tracer.startSpan(options.agentName ? `invoke_agent ${options.agentName}` : 'invoke_agent', {
    kind: SpanKind.INTERNAL,
    attributes: dropUndefined({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': options.agentName,
      'gen_ai.provider.name': options.provider,
      'gen_ai.request.model': options.model,
      'gen_ai.conversation.id': options.contextId,
    }),
  });
  const runContext = trace.setSpan(context.active(), runSpan);

  const child = (name: string, attributes: Attributes, startTime?: number): Span =>
    tracer.startSpan(name, { kind: SpanKind.INTERNAL, attributes, startTime }, turnSpan ? trace.setSpan(context.active(), turnSpan) : runContext);

  const endTurn = () => {
    for (const span of toolSpans.values()) span.end();
    toolSpans.clear();
    turnSpan?.end();
    turnSpan = undefined;
  };
  const endRun = (stopReason?: string) => {
    endTurn();
    if (!runSpan) return;
    runSpan.setAttributes({ 'gen_ai.usage.input_tokens': totals.input, 'gen_ai.usage.output_tokens': totals.output });
    if (stopReason !== undefined) {
      runSpan.setAttribute('strata.stop_reason', stopReason);
      if (stopReason !== 'completed') runSpan.setStatus({ code: SpanStatusCode.ERROR, message: stopReason });
    }
    runSpan.end();
    runSpan = undefined;
  };

  let warned = false;
  /** Runs `record`; a failure is said once and never reaches the run. */
  const safely = (record: () => void) => {
    try {
      record();
    } catch (error) {
      if (warned) return;
      warned = true;
      options.warn?.(`telemetry: could not record a span (${error instanceof Error ? error.message.split('\n')[0] : String(error)}); the run goes on`);
    }
  };

  return {
    onEvent: (event) => safely(() => {
      switch (event.type) {
        case 'turn-start':
          endTurn();
          turnSpan = tracer.startSpan(`chat ${options.model}`, {
            kind: SpanKind.CLIENT,
            attributes: {
              'gen_ai.operation.name': 'chat',
              'gen_ai.provider.name': options.provider,
              'gen_ai.request.model': options.model,
              'gen_ai.conversation.id': options.contextId,
              'strata.turn': event.turn,
            },
          }, runContext);
          break;
        case 'context-assembled': {
          turnSpan?.setAttributes(contextAttributes(event.trace, options.captureContent === true));
          const compacted = compactionEvent(event.trace);
          if (compacted) turnSpan?.addEvent('gen_ai.conversation.compacted', compacted);
          const windowed = windowEvent(event.trace);
          if (windowed) turnSpan?.addEvent('strata.context.windowed', windowed);
          break;
        }
        case 'usage':
          totals.input += event.usage.inputTokens ?? 0;
          totals.output += event.usage.outputTokens ?? 0;
          turnSpan?.setAttributes(dropUndefined({
            'gen_ai.response.model': event.response?.modelId,
            'gen_ai.response.id': event.response?.id,
            'gen_ai.usage.input_tokens': event.usage.inputTokens,
            'gen_ai.usage.output_tokens': event.usage.outputTokens,
            'gen_ai.usage.cache_read.input_tokens': event.usage.cachedInputTokens,
            'gen_ai.usage.cache_creation.input_tokens': event.usage.cacheWriteInputTokens,
          }));
          if (event.finishReason !== undefined) turnSpan?.setAttribute('gen_ai.response.finish_reasons', [event.finishReason]);
          break;
        case 'overflow-recovery':
          turnSpan?.addEvent('strata.overflow_recovery', { 'strata.recovery.attempt': event.attempt });
          break;
        case 'tool-call-start': {
          const span = child(`execute_tool ${event.call.name}`, {
            'gen_ai.operation.name': 'execute_tool',
            'gen_ai.tool.name': event.call.name,
            'gen_ai.tool.call.id': event.call.id,
            ...(options.captureContent ? { 'gen_ai.tool.call.arguments': JSON.stringify(event.call.input) } : {}),
          });
          toolSpans.set(event.call.id, span);
          break;
        }
        case 'tool-call-end': {
          const span = toolSpans.get(event.call.id);
          if (!span) break;
          // The whole output's length: a stored output's message may carry only its preview.
          span.setAttribute('strata.tool.result_characters', event.result.outputRef?.chars ?? event.result.content.length);
          if (options.captureContent) span.setAttribute('gen_ai.tool.call.result', event.result.content);
          if (event.result.isError) span.setStatus({ code: SpanStatusCode.ERROR, message: 'the tool returned an error result' });
          span.end();
          toolSpans.delete(event.call.id);
          break;
        }
        case 'turn-end':
          // The turn span stays open over the tool calls this answer asked for; the next turn or the run's end closes it.
          turnSpan?.addEvent('strata.model_response_end');
          break;
        case 'run-end':
          if (turnSpan && event.stopReason !== 'completed') turnSpan.setStatus({ code: SpanStatusCode.ERROR, message: event.stopReason });
          endRun(event.stopReason);
          break;
        default:
          break;
      }
    }),
    onStage: (event) => safely(() => {
      const start = toEpoch(event.startedAt);
      child(`strata.context.${event.stage}`, { 'strata.stage': event.stage, 'strata.turn': event.turn }, start).end(start + event.durationMs);
    }),
    end: () => safely(() => endRun()),
  };
}

/**
 * The attributes of a turn's compaction event, or undefined when the turn did
 * not compact: the reason, tokens before and after, the outputs stored, and
 * the count of receipts when the trace records them.
 */
function compactionEvent(trace: ContextTraceV5): Attributes | undefined {
  const compaction = trace.compaction;
  if (compaction.reason === null) return undefined;
  const receipts = (compaction as { readonly receipts?: unknown }).receipts;
  return dropUndefined({
    'strata.compaction.reason': compaction.reason,
    'strata.compaction.tokens_before': compaction.estimatedTokensBefore ?? undefined,
    'strata.compaction.tokens_after': compaction.estimatedTokensAfter ?? undefined,
    'strata.compaction.outputs_stored': compaction.compactedOutputRefs.length,
    'strata.compaction.receipts': Array.isArray(receipts) ? receipts.length : undefined,
  });
}

/**
 * The attributes of a turn's window-cut receipts, or undefined when the
 * window listed no dropped output: how many, their tokens, and each one's
 * reference (read back with `read_tool_output`).
 */
function windowEvent(trace: ContextTraceV5): Attributes | undefined {
  const receipts = trace.renderedContext?.windowReceipts ?? [];
  if (receipts.length === 0) return undefined;
  return {
    'strata.window.receipts': receipts.length,
    'strata.window.tokens_dropped': receipts.reduce((total, receipt) => total + receipt.tokensBefore, 0),
    'strata.window.refs': receipts.flatMap((receipt) => (receipt.location.kind === 'checkpoint' ? [] : [receipt.location.ref])),
  };
}

/** Our attributes of an assembled turn: mode, scope, tokens by part and by contributor, compaction. */
function contextAttributes(trace: ContextTraceV5, captureContent: boolean): Attributes {
  const budget = trace.budget;
  const compaction = trace.compaction;
  const history = trace.renderedContext?.window.usedTokens;
  return dropUndefined({
    'strata.context.mode': trace.mode,
    'strata.context.scope': trace.scope,
    'strata.context.path': trace.selectedPath,
    'strata.context.input_cap_tokens': budget?.inputCapTokens,
    'strata.context.total_tokens': budget?.totalTokens,
    'strata.context.tokens.system': budget?.systemPromptUsedTokens,
    'strata.context.tokens.tools': budget?.toolTokens,
    'strata.context.tokens.data': budget?.callLocalTokens,
    'strata.context.tokens.history': history,
    'strata.context.sections': trace.renderedContext?.sectionIds.join(','),
    'strata.context.contributors': trace.contributors.map((record) => `${record.contributorId}:${record.status}`).join(','),
    'strata.context.diagnostics': trace.diagnostics.map((diagnostic) => diagnostic.code).join(',') || undefined,
    'gen_ai.conversation.compacted': compaction.reason !== null ? true : undefined,
    'strata.compaction.reason': compaction.reason ?? undefined,
    'strata.compaction.tokens_before': compaction.estimatedTokensBefore ?? undefined,
    'strata.compaction.tokens_after': compaction.estimatedTokensAfter ?? undefined,
    'strata.compaction.output_refs': compaction.compactedOutputRefs.length > 0 ? compaction.compactedOutputRefs.map((ref) => ref.id).join(',') : undefined,
    'gen_ai.input.messages': captureContent ? JSON.stringify(trace.llmInput.messages) : undefined,
    // Tokens by contributor, one attribute each (ids are the contributors', never content).
    ...Object.fromEntries(Object.entries(budget?.contributorTokens ?? {}).map(([id, tokens]) => [`strata.context.contributor_tokens.${id}`, tokens])),
  });
}

function dropUndefined(attributes: Record<string, string | number | boolean | undefined>): Attributes {
  return Object.fromEntries(Object.entries(attributes).filter(([, value]) => value !== undefined)) as Attributes;
}
