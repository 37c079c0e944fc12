import { asSchema, jsonSchema, tool, type LanguageModelMiddleware, type ModelMessage, type Tool, type ToolSet } from 'ai';
import { asImportedImages, createHostLoopContext, exportSdkMessages, importSdkMessages, PendingUsage, ToolCallContexts, type CanonicalMessage, type CreateHostLoopContextOptions, type HostLoopTurn, type HostLoopUsage, type JsonValue, type SdkOrigin, type SessionStore, type ToolOutputStore, type ToolSchema } from '@strata/context';
import { createMemorySessionStore, createMemoryToolOutputStore } from '@strata/store';
import { createReadToolOutputTool, hostToolResultStore, type ReadToolOutputToolOptions } from '@strata/tools';
import { toModelMessages } from './ai-sdk-history.js';
import { toLanguageModelMessages, type LanguageModelMessage, type LanguageModelCallOptions } from './language-model-prompt.js';

export interface StrataAiSdkOptions extends Omit<CreateHostLoopContextOptions, 'outputStore' | 'sessionStore'> {
  /**
   * The conversation's id in stores and traces, shared by every run given
   * this instance. Default: each run its own context (`prepareStep` knows
   * the run by its list of steps, the middleware by its opening and the
   * stored context its prompt continues; ids `ai-sdk:<opening>.<n>`), so
   * concurrent runs never share a stored output or a search; a later run
   * that continues a finished one's messages continues its context.
   */
  readonly contextId?: string;
  /** Where tool results are stored for `read_tool_output`. Default: a new in-memory store. */
  readonly outputStore?: ToolOutputStore;
  /**
   * Where each context's compacted history and context state are kept
   * between calls, so a new instance or another process continues it
   * exactly (a SQLite or PostgreSQL store from `@strata/store`). Default: a
   * new in-memory store.
   */
  readonly sessionStore?: SessionStore;
  /**
   * The tools given to `generateText` / `streamText` / the agent, so
   * `prepareStep` charges their schemas to the budget (it is not told them).
   * The middleware reads them from each call.
   */
  readonly tools?: ToolSet;
  /**
   * The `system` given to `generateText` / `streamText` / the agent, so
   * `prepareStep` charges it to the budget (it is not told it either; the
   * SDK still sends it). The middleware reads it from each call's prompt.
   */
  readonly system?: string;
  /** Settings of the `read_tool_output` tool. */
  readonly readToolOutput?: Omit<ReadToolOutputToolOptions, 'store'>;
}

/** What `prepareStep` reads of its options: the step's messages and the run's steps. */
export interface PrepareStepOptions {
  readonly messages: ModelMessage[];
  /** Passed on by the AI SDK; Strata counts its own turns. */
  readonly stepNumber?: number;
  /**
   * The run's steps so far: one list per run, which names the run's context.
   * The last step's `usage.inputTokens` (what the provider counted of the
   * previous call) is fed back before this step assembles.
   */
  readonly steps?: readonly unknown[];
}

/** What `onFinish` reads of the SDK's finish event: the run's steps, the list `prepareStep` was given. */
export interface FinishEvent {
  readonly steps?: readonly unknown[];
}

export interface StrataAiSdk {
  /** For `generateText`, `streamText` and `ToolLoopAgent`: gives each step the messages Strata chose. */
  readonly prepareStep: (options: PrepareStepOptions) => Promise<{ messages: ModelMessage[] }>;
  /**
   * For the same call's `onFinish` (`generateText`, `streamText`,
   * `ToolLoopAgent`): feeds the run's last step's usage back and writes that
   * step's trace with it. Every other step's usage is fed back by the next
   * `prepareStep`; a step's trace waits for its usage. Without `onFinish` the
   * last step's trace is written without usage after `PENDING_USAGE_CALLS`
   * (256) later model calls through this instance.
   */
  readonly onFinish: (event: FinishEvent) => Promise<void>;
  /** For `wrapLanguageModel`: the same over the language model's own prompt. */
  readonly middleware: LanguageModelMiddleware;
  /** `read_tool_output` in the AI SDK's `tool()` form; add it to the call's tools. */
  readonly tools: { readonly read_tool_output: Tool };
  readonly outputStore: ToolOutputStore;
}

/** The prefix of each run's context id, and the context of a `read_tool_output` call no run issued. */
const SCOPE = 'ai-sdk';

/**
 * Strata inside an AI SDK 6 loop. The loop, the provider and the tools stay
 * the user's; each model call Strata decides the window under the budget,
 * compacts (large tool results become previews with a `read_tool_output`
 * reference), never splits a tool call from its results, and writes a trace
 * to `traceSink` when one is given. Unchanged messages reach the model as the
 * SDK's own values (images, files, reasoning and provider options included).
 */
export function createStrataAiSdk(options: StrataAiSdkOptions): StrataAiSdk {
  return createAdapter(options, true);
}

/** The adapter; `holdsStepTraces` false where no `onFinish` can be given (`strataPrepareStep`): each step's trace is written at assembly. */
function createAdapter(options: StrataAiSdkOptions, holdsStepTraces: boolean): StrataAiSdk {
  const { contextId, tools, system, readToolOutput, ...settings } = options;
  const outputStore = options.outputStore ?? createMemoryToolOutputStore();
  const sessionStore = options.sessionStore ?? createMemorySessionStore();
  const context = createHostLoopContext<SdkOrigin<ModelMessage>>({ ...settings, outputStore, sessionStore, storeResult: hostToolResultStore(outputStore) });
  // The middleware's contexts are kept apart from prepareStep's unless the caller gives one store for both.
  const promptContext = createHostLoopContext<SdkOrigin<LanguageModelMessage>>({ ...settings, outputStore, sessionStore: options.sessionStore ?? createMemorySessionStore(), storeResult: hostToolResultStore(outputStore) });
  const readTool = createReadToolOutputTool({ ...readToolOutput, store: outputStore });
  // `read_tool_output` is charged too: the user adds it to the call's tools (a duplicate by name counts once).
  const toolSchemas = [...toolSetSchemas(tools ?? {}).filter((schema) => schema.name !== readTool.name), readTool];
  /** The origin of the charged `system`, told apart by identity. */
  const systemOrigin: SdkOrigin<ModelMessage> | undefined = system ? { message: { role: 'system', content: system } } : undefined;
  // How `read_tool_output` finds its run's context: the SDK gives a tool the step's messages, the very list `prepareStep` was given;
  // under the middleware, the call ids of each response name the context of the prompt that issued them.
  const stepContexts = new WeakMap<readonly ModelMessage[], string>();
  const promptTurns = new WeakMap<LanguageModelCallOptions, HostLoopTurn<SdkOrigin<LanguageModelMessage>>>();
  /** The model call, its failure recorded with the turn (no usage), then thrown as it was. */
  const recordingFailure = async <Result>(turn: HostLoopTurn<SdkOrigin<LanguageModelMessage>> | undefined, started: number, call: () => PromiseLike<Result>): Promise<Result> => {
    try {
      return await call();
    } catch (error) {
      if (turn) await promptContext.recordUsage(turn, { error, modelMs: performance.now() - started });
      throw error;
    }
  };
  const calls = new ToolCallContexts();

  // The turn of each run's newest step, its trace held until that step's usage is told (insertion order: oldest first).
  const pendingSteps = new PendingUsage<object, HostLoopTurn<SdkOrigin<ModelMessage>>>();
  /** Feeds the run's newest step's usage back and writes its trace; nothing when no step of the run waits. */
  const reportStep = async (run: readonly unknown[]): Promise<void> => {
    const turn = pendingSteps.take(run);
    if (turn === undefined) return;
    const usage = (run.at(-1) as { usage?: StepUsage } | undefined)?.usage;
    await context.recordUsage(turn, { usage: stepUsage(usage) });
  };

  return {
    outputStore,
    async prepareStep({ messages, steps }) {
      const charged = systemOrigin === undefined ? [] : [{ message: { role: 'system' as const, content: system! }, origin: systemOrigin }];
      const run = Array.isArray(steps) ? steps : undefined;
      // Usage feedback: the SDK tells a step's usage with the next step, the last one with `onFinish`.
      const previousInputTokens = holdsStepTraces ? undefined : (run?.at(-1) as { usage?: StepUsage } | undefined)?.usage?.inputTokens;
      if (run !== undefined) await reportStep(run);
      const turn = await context.prepare({ contextId, run, scope: SCOPE, messages: [...charged, ...importSdkMessages(messages, asImportedImages)], tools: toolSchemas, previousInputTokens, reportsUsage: holdsStepTraces && run !== undefined });
      // A run never finished (no `onFinish` given, a failed call): its last trace is written without usage.
      if (run !== undefined && holdsStepTraces) for (const expired of pendingSteps.add(run, turn)) await context.recordUsage(expired, {});
      stepContexts.set(messages, turn.contextId);
      // The SDK sends `system` itself: it is charged, never returned.
      const returned = { ...turn, messages: turn.messages.filter(({ origin }) => origin === undefined || origin !== systemOrigin) };
      return { messages: exportSdkMessages(returned, (message) => toModelMessages<ModelMessage>(message)) };
    },
    async onFinish(event) {
      const run = (event as FinishEvent | null | undefined)?.steps;
      if (Array.isArray(run)) await reportStep(run);
    },
    middleware: {
      specificationVersion: 'v3',
      async transformParams({ params }: { params: LanguageModelCallOptions }) {
        const turn = await promptContext.prepare({
          contextId,
          scope: SCOPE,
          messages: importSdkMessages(params.prompt, asImportedImages),
          tools: callToolSchemas(params.tools),
          signal: params.abortSignal,
          // The call's usage comes back through wrapGenerate / wrapStream: the trace waits for it.
          reportsUsage: true,
        });
        const transformed = { ...params, prompt: exportSdkMessages(turn, (message: CanonicalMessage) => toLanguageModelMessages(toModelMessages(message))) };
        promptTurns.set(transformed, turn);
        return transformed;
      },
      async wrapGenerate({ doGenerate, params }) {
        const turn = promptTurns.get(params);
        const started = performance.now();
        const result = await recordingFailure(turn, started, doGenerate);
        if (turn !== undefined) {
          calls.issued(turn.contextId, result.content.flatMap((part) => (part.type === 'tool-call' ? [part.toolCallId] : [])));
          await promptContext.recordUsage(turn, { usage: hostUsage(result.usage), modelMs: performance.now() - started });
        }
        return result;
      },
      async wrapStream({ doStream, params }) {
        const turn = promptTurns.get(params);
        const started = performance.now();
        const result = await recordingFailure(turn, started, doStream);
        if (turn === undefined) return result;
        // Reported once: at the finish part, else at an error part or when the stream ends without one.
        let reported = false;
        const report = async (outcome: { usage?: HostLoopUsage; error?: unknown }) => {
          if (reported) return;
          reported = true;
          await promptContext.recordUsage(turn, { ...outcome, modelMs: performance.now() - started });
        };
        type StreamPart = typeof result.stream extends ReadableStream<infer Part> ? Part : never;
        const watched = result.stream.pipeThrough(
          new TransformStream<StreamPart, StreamPart>({
            async transform(part, controller) {
              if (part.type === 'tool-call') calls.issued(turn.contextId, [part.toolCallId]);
              if (part.type === 'finish') await report({ usage: hostUsage(part.usage) });
              else if (part.type === 'error') await report({ error: part.error });
              controller.enqueue(part);
            },
            async flush() {
              await report({});
            },
          }),
        );
        return { ...result, stream: watched };
      },
    },
    tools: {
      read_tool_output: tool({
        description: readTool.description,
        inputSchema: jsonSchema<Record<string, unknown>>(readTool.parameters as Parameters<typeof jsonSchema>[0]),
        async execute(input, { toolCallId, messages, abortSignal }) {
          const run = contextId ?? stepContexts.get(messages) ?? (await calls.contextOf(toolCallId, input, outputStore)) ?? SCOPE;
          const outcome = await readTool.execute(input as JsonValue, { contextId: run, toolCallId, signal: abortSignal ?? new AbortController().signal });
          return outcome.content;
        },
      }),
    },
  };
}

/**
 * `createStrataAiSdk(options).prepareStep`, when only `prepareStep` is
 * needed: with no `onFinish` to tell the last step's usage, each step's
 * trace is written as it is assembled (without the provider's count) and the
 * previous step's input count is fed back to the calibration.
 */
export function strataPrepareStep(options: StrataAiSdkOptions): StrataAiSdk['prepareStep'] {
  return createAdapter(options, false).prepareStep;
}

/** `createStrataAiSdk(options).middleware`: for `wrapLanguageModel({ model, middleware })`. */
export function strataMiddleware(options: StrataAiSdkOptions): LanguageModelMiddleware {
  return createStrataAiSdk(options).middleware;
}

/** A step's usage as the AI SDK reports it (`LanguageModelUsage`). */
type StepUsage = { readonly inputTokens?: unknown; readonly outputTokens?: unknown; readonly inputTokenDetails?: { readonly cacheReadTokens?: unknown; readonly cacheWriteTokens?: unknown } };

/** A step's usage as the host loop records it (nothing reported: `undefined`). */
function stepUsage(usage: StepUsage | undefined): HostLoopUsage | undefined {
  if (typeof usage !== 'object' || usage === null) return undefined;
  return { inputTokens: usage.inputTokens, outputTokens: usage.outputTokens, cachedInputTokens: usage.inputTokenDetails?.cacheReadTokens, cacheWriteInputTokens: usage.inputTokenDetails?.cacheWriteTokens };
}

/** A language model's usage as the host loop records it. */
function hostUsage(usage: { readonly inputTokens?: { readonly total?: number; readonly cacheRead?: number; readonly cacheWrite?: number }; readonly outputTokens?: { readonly total?: number } } | undefined): HostLoopUsage {
  return { inputTokens: usage?.inputTokens?.total, outputTokens: usage?.outputTokens?.total, cachedInputTokens: usage?.inputTokens?.cacheRead, cacheWriteInputTokens: usage?.inputTokens?.cacheWrite };
}

/** An AI SDK tool set as the schemas the budget is charged for, sorted by name by the assembler. */
function toolSetSchemas(tools: ToolSet): ToolSchema[] {
  return Object.entries(tools).map(([name, definition]) => ({
    name,
    description: definition.description ?? '',
    parameters: asSchema(definition.inputSchema).jsonSchema as { [key: string]: JsonValue },
  }));
}

/** The function tools of one language-model call. */
function callToolSchemas(tools: LanguageModelCallOptions['tools']): ToolSchema[] {
  return (tools ?? []).flatMap((definition) =>
    definition.type === 'function' ? [{ name: definition.name, description: definition.description ?? '', parameters: definition.inputSchema as { [key: string]: JsonValue } }] : [],
  );
}
