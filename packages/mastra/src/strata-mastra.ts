import { createHash } from 'node:crypto';
import type { AgentExecutionOptions } from '@mastra/core/agent';
import { createTool } from '@mastra/core/tools';
import { z } from 'zod';
import { asImportedImages, ConfigurationError, createHostLoopContext, exportSdkMessages, importSdkMessages, PENDING_USAGE_CALLS, toPromptMessages, toAiSdkMessages, ToolCallContexts, type CanonicalMessage, type CreateHostLoopContextOptions, type HostLoopTurn, type HostLoopUsage, type JsonValue, type SdkMessage, type SdkOrigin, type SessionStore, type ToolOutputStore, type ToolSchema } from '@strata/context';
import { createMemorySessionStore, createMemoryToolOutputStore } from '@strata/store';
import { createReadToolOutputTool, hostToolResultStore, type ReadToolOutputToolOptions } from '@strata/tools';

/** A Mastra tool as far as the budget reads it: its description and its (zod) input schema. */
export interface MastraToolLike {
  readonly description?: string;
  readonly inputSchema?: unknown;
}

export interface StrataMastraOptions extends Omit<CreateHostLoopContextOptions, 'outputStore' | 'sessionStore'> {
  /**
   * The conversation's id in stores and traces. Default: each run its own,
   * by its opening and the stored context its messages continue (ids
   * `mastra:<opening>.<n>`), so concurrent runs never share a stored output.
   * `read_tool_output` finds a run's context by the request Mastra gives the
   * tool (the call's newest user message); of runs with the same request,
   * the one that stored the output it reads.
   */
  readonly contextId?: string;
  /** Where tool results are stored for `read_tool_output`. Default: a new in-memory store. */
  readonly outputStore?: ToolOutputStore;
  /** Where each context's compacted history and context state are kept between calls. Default: a new in-memory store. */
  readonly sessionStore?: SessionStore;
  /**
   * The agent's tools, so each step charges their schemas to the budget
   * (Mastra does not tell `prepareStep` its tools). `read_tool_output` is
   * charged whether given here or not.
   */
  readonly tools?: Readonly<Record<string, MastraToolLike>>;
  /**
   * The agent's `instructions`. Mastra 0.24 gives `prepareStep` the message
   * list without its system messages, and a step's returned messages replace
   * the whole prompt: the instructions are charged to the budget and sent
   * first in every step. Without them the model gets no system message.
   */
  readonly instructions?: string;
  /** Settings of the `read_tool_output` tool. */
  readonly readToolOutput?: Omit<ReadToolOutputToolOptions, 'store'>;
}

/** The messages Mastra's `prepareStep` returns (its AI SDK v5 `ModelMessage`), as its own types say. */
export type MastraModelMessage = NonNullable<NonNullable<Awaited<ReturnType<NonNullable<AgentExecutionOptions['prepareStep']>>>>['messages']>[number];

/** What Mastra 0.24 passes to `prepareStep` (agent `generate` / `stream`), as far as Strata reads it. */
export interface MastraPrepareStepArgs {
  /** The step's whole message list (AI SDK v5 `ModelMessage`s: the agent's instructions, memory, input and responses). */
  readonly messages: readonly unknown[];
  readonly stepNumber?: number;
  /** The run's steps so far; the last one's `usage.inputTokens` is fed back before this step assembles. */
  readonly steps?: readonly unknown[];
}

/** A language model as far as `wrapModel` reads it: an AI SDK v5 `LanguageModelV2`'s calls. */
export interface MastraLanguageModel {
  readonly specificationVersion: string;
  doGenerate(options: never): PromiseLike<unknown>;
  doStream(options: never): PromiseLike<unknown>;
}

/** What `wrapModel` reads of a call's options: the prompt, the tools, the abort signal. */
interface ModelCallOptions {
  readonly prompt: SdkMessage[];
  readonly tools?: ReadonlyArray<{ readonly type: string; readonly name: string; readonly description?: string; readonly inputSchema?: unknown }>;
  readonly abortSignal?: AbortSignal;
}

/** What Mastra 0.24 passes to `onFinish`, as far as Strata reads it: the run's steps, each with its usage and tool calls. */
export interface MastraFinishEvent {
  readonly steps?: readonly unknown[];
}

export interface StrataMastra {
  /**
   * For `agent.generate(messages, { prepareStep })` / `agent.stream`: each
   * model call of the agent's loop gets the messages Strata chose; one trace
   * per call, written as it is assembled.
   */
  readonly prepareStep: (args: MastraPrepareStepArgs) => Promise<{ messages: MastraModelMessage[] }>;
  /**
   * For the same call's `onFinish` (`agent.generate` / `agent.stream`):
   * feeds the run's last step's usage back (every other step's usage is fed
   * back by the next `prepareStep`), so the next call of the conversation is
   * calibrated by the provider's count of the last one. The run's context is
   * the one given, else the one whose steps issued the run's tool calls,
   * else the only context whose newest step is the run's last; a run it
   * cannot tell apart (concurrent one-step runs without a context id) is
   * left unfed. What the feedback notices goes to `onDiagnostic`; the
   * promise resolves once the usage is stored (Mastra's `onFinish` type).
   */
  readonly onFinish: (event: MastraFinishEvent) => Promise<void>;
  /**
   * The agent's model (an AI SDK v5 `LanguageModelV2`, what Mastra 0.24
   * runs) with Strata deciding each call's prompt, in place of
   * `prepareStep`: it sees the whole prompt Mastra sends, so every system
   * message is charged and kept (the instructions, and the one Mastra's
   * memory adds, which `prepareStep` is never shown), the tools are read
   * from the call, and each call's usage is fed back as it ends (its trace
   * written with it). Use one of the two per agent.
   */
  readonly wrapModel: <Model extends MastraLanguageModel>(model: Model) => Model;
  /** `read_tool_output` as a Mastra tool; add it to the agent's `tools` under the key `read_tool_output`. */
  readonly readToolOutput: ReturnType<typeof createTool>;
  readonly outputStore: ToolOutputStore;
}

/** The prefix of each run's context id, and the context of a `read_tool_output` call no step issued. */
const SCOPE = 'mastra';
/** How many tool calls' steps are remembered to split Mastra's merged steps. */
const ISSUED_CALLS = 65_536;

/**
 * Strata inside a Mastra 0.24 agent's own loop. Mastra's input processors
 * run once per `generate` over the call's new input only, so the window is
 * decided where Mastra asks before every model call: `prepareStep`. Strata
 * decides the window under the budget, compacts (large tool results become
 * previews with a `read_tool_output` reference), never splits a tool call
 * from its results, and writes a trace to `traceSink` when one is given.
 * Mastra's message list keeps every message: only the model call sees the
 * window. Unchanged messages go back as Mastra's own values.
 */
export function createStrataMastra(options: StrataMastraOptions): StrataMastra {
  if (typeof options !== 'object' || options === null) throw new ConfigurationError({ setting: 'options', message: `createStrataMastra: options must be an object with a budget, got ${options === null ? 'null' : typeof options}` });
  const { contextId, tools, instructions, readToolOutput, ...settings } = options;
  if (instructions !== undefined && typeof instructions !== 'string') throw new ConfigurationError({ setting: 'instructions', message: `createStrataMastra: instructions must be a string, got ${typeof instructions}` });
  const outputStore = options.outputStore ?? createMemoryToolOutputStore();
  const sessionStore = options.sessionStore ?? createMemorySessionStore();
  const context = createHostLoopContext<SdkOrigin<SdkMessage>>({ ...settings, outputStore, sessionStore, storeResult: hostToolResultStore(outputStore) });
  const readTool = createReadToolOutputTool({ ...readToolOutput, store: outputStore });
  const toolSchemas: ToolSchema[] = [...Object.entries(tools ?? {}).filter(([name]) => name !== readTool.name).map(([name, definition]) => toolSchema(name, definition)), readTool];
  // The contexts of each newest request (its hash), newest first: the same bounded, ref-owner-first lookup as tool calls'.
  const contexts = new ToolCallContexts();
  // The prepareStep each tool call was first seen by (the newest ISSUED_CALLS kept), to split Mastra's merged steps.
  const issuedAt = new Map<string, number>();
  let seen = 0;
  // Each context's newest step, until `onFinish` feeds its usage back (the newest PENDING_USAGE_CALLS contexts kept).
  const newestSteps = new Map<string, { turn: HostLoopTurn<SdkOrigin<SdkMessage>>; step: number }>();
  // The context of each tool call a step was given (the newest ISSUED_CALLS), so `onFinish` finds its run by its calls.
  const callContexts = new Map<string, string>();
  const remember = (id: string, at: number): void => {
    issuedAt.set(id, at);
    if (issuedAt.size > ISSUED_CALLS) issuedAt.delete(issuedAt.keys().next().value!);
  };
  // The instructions as a charged system message, its origin the very message returned.
  const systemMessage = instructions ? { role: 'system' as const, content: instructions } : undefined;
  const system = systemMessage ? [{ message: systemMessage, origin: { message: systemMessage } }] : [];

  return {
    outputStore,
    async prepareStep(args) {
      const given = Array.isArray(args?.messages) ? (args.messages as SdkMessage[]) : [];
      // Calls first seen by the same prepareStep were issued by the same step.
      seen += 1;
      for (const message of given) if (message?.role === 'assistant' && Array.isArray(message.content)) for (const part of message.content) if (isToolCall(part) && !issuedAt.has(part.toolCallId)) remember(part.toolCallId, seen);
      const messages = splitSteps(given, (id) => issuedAt.get(id));
      const previous = (Array.isArray(args?.steps) ? args.steps.at(-1) : undefined) as { usage?: { inputTokens?: unknown } } | undefined;
      const turn = await context.prepare({ contextId, scope: SCOPE, messages: [...system, ...importSdkMessages(messages, asImportedImages)], tools: toolSchemas, previousInputTokens: previous?.usage?.inputTokens });
      const exported = exportSdkMessages(turn, (message: CanonicalMessage) => toAiSdkMessages([message]) as SdkMessage[]);
      // Mastra tells a tool only the call's input messages: the newest request names the run's context for `read_tool_output`.
      const request = newestRequest(given);
      if (request !== undefined) contexts.issued(turn.contextId, [request]);
      newestSteps.delete(turn.contextId);
      newestSteps.set(turn.contextId, { turn, step: Array.isArray(args?.steps) ? args.steps.length : 0 });
      if (newestSteps.size > PENDING_USAGE_CALLS) newestSteps.delete(newestSteps.keys().next().value!);
      for (const id of callIds(given)) {
        callContexts.delete(id);
        callContexts.set(id, turn.contextId);
        if (callContexts.size > ISSUED_CALLS) callContexts.delete(callContexts.keys().next().value!);
      }
      // Our SDK messages are the AI SDK v5 shapes Mastra takes (the same fields as v6's): typed here as Mastra names them.
      return { messages: exported as unknown as MastraModelMessage[] };
    },
    async onFinish(event) {
      const steps = (event as MastraFinishEvent | null | undefined)?.steps;
      if (!Array.isArray(steps) || steps.length === 0) return;
      const last = steps.length - 1;
      const named = contextId ?? steps.flatMap((step) => stepCallIds(step)).map((id) => callContexts.get(id)).find((found) => found !== undefined);
      const candidates = named === undefined ? [...newestSteps].filter(([, entry]) => entry.step === last) : [];
      const run = named ?? (candidates.length === 1 ? candidates[0]![0] : undefined);
      const newest = run === undefined ? undefined : newestSteps.get(run);
      if (newest === undefined || newest.step !== last) return;
      newestSteps.delete(run!);
      await context.recordUsage(newest.turn, { usage: stepUsage((steps[last] as { usage?: unknown } | undefined)?.usage) });
    },
    wrapModel(model) {
      if (typeof model !== 'object' || model === null || typeof model.doGenerate !== 'function' || typeof model.doStream !== 'function') throw new ConfigurationError({ setting: 'model', message: `createStrataMastra: wrapModel needs a language model with doGenerate and doStream, got ${model === null ? 'null' : typeof model}` });
      /** The call's turn, assembled over the prompt Mastra would send (its system messages included). */
      const assemble = async (options: ModelCallOptions): Promise<{ turn: HostLoopTurn<SdkOrigin<SdkMessage>>; call: ModelCallOptions; at: number }> => {
        const prompt = Array.isArray(options?.prompt) ? options.prompt : [];
        seen += 1;
        const at = seen;
        const tools = (Array.isArray(options?.tools) ? options.tools : []).flatMap((tool) => (tool?.type === 'function' ? [{ name: tool.name, description: tool.description ?? '', parameters: (tool.inputSchema ?? { type: 'object' }) as { [key: string]: JsonValue } }] : []));
        const turn = await context.prepare({ contextId, scope: SCOPE, messages: importSdkMessages(splitSteps(prompt, (id) => issuedAt.get(id)), asImportedImages), tools, signal: options?.abortSignal, reportsUsage: true });
        const request = newestRequest(prompt);
        if (request !== undefined) contexts.issued(turn.contextId, [request]);
        return { turn, at, call: { ...options, prompt: exportSdkMessages(turn, (message: CanonicalMessage) => toPromptMessages(toAiSdkMessages([message]) as SdkMessage[])) } };
      };
      const wrapped = Object.create(model) as typeof model & { doGenerate: (options: ModelCallOptions) => Promise<unknown>; doStream: (options: ModelCallOptions) => Promise<unknown> };
      wrapped.doGenerate = async (options) => {
        const { turn, call, at } = await assemble(options);
        const started = performance.now();
        let result: { content?: unknown; usage?: unknown };
        try {
          result = (await (model.doGenerate as (options: ModelCallOptions) => PromiseLike<typeof result>).call(model, call)) ?? {};
        } catch (error) {
          await context.recordUsage(turn, { error, modelMs: performance.now() - started });
          throw error;
        }
        if (Array.isArray(result.content)) for (const part of result.content) if (isToolCall(part)) remember(part.toolCallId, at);
        await context.recordUsage(turn, { usage: stepUsage(result.usage), modelMs: performance.now() - started });
        return result;
      };
      wrapped.doStream = async (options) => {
        const { turn, call, at } = await assemble(options);
        const started = performance.now();
        let result: { stream: ReadableStream<{ type?: unknown; usage?: unknown; error?: unknown; toolCallId?: unknown }> };
        try {
          result = await (model.doStream as (options: ModelCallOptions) => PromiseLike<typeof result>).call(model, call);
        } catch (error) {
          await context.recordUsage(turn, { error, modelMs: performance.now() - started });
          throw error;
        }
        // Reported once: at the finish part, else at an error part or when the stream ends without one.
        let reported = false;
        const report = async (outcome: { usage?: HostLoopUsage | undefined; error?: unknown }) => {
          if (reported) return;
          reported = true;
          await context.recordUsage(turn, { ...outcome, modelMs: performance.now() - started });
        };
        type StreamPart = { type?: unknown; usage?: unknown; error?: unknown; toolCallId?: unknown };
        const stream = result.stream.pipeThrough(
          new TransformStream<StreamPart, StreamPart>({
            async transform(part, controller) {
              if (isToolCall(part)) remember(part.toolCallId, at);
              if (part?.type === 'finish') await report({ usage: stepUsage(part.usage) });
              else if (part?.type === 'error') await report({ error: part.error });
              controller.enqueue(part);
            },
            async flush() {
              await report({});
            },
          }),
        );
        return { ...result, stream };
      };
      return wrapped;
    },
    readToolOutput: createTool({
      id: readTool.name,
      description: readTool.description ?? '',
      inputSchema: z.fromJSONSchema(readTool.parameters as Parameters<typeof z.fromJSONSchema>[0]) as z.ZodType<Record<string, unknown>>,
      execute: async ({ context: input }, invocation) => {
        const toolCallId = typeof invocation?.toolCallId === 'string' ? invocation.toolCallId : '';
        // Mastra gives a tool the call's input messages: of the contexts whose newest request they end with, the one that stored the ref.
        const request = newestRequest(Array.isArray(invocation?.messages) ? (invocation.messages as SdkMessage[]) : []);
        const run = contextId ?? (request === undefined ? undefined : await contexts.contextOf(request, input, outputStore)) ?? SCOPE;
        const outcome = await readTool.execute(input as JsonValue, { contextId: run, toolCallId, signal: invocation?.abortSignal ?? new AbortController().signal });
        return outcome.content;
      },
    }),
  };
}

type Part = { readonly type?: unknown; readonly toolCallId?: unknown };

/** The ids of the tool calls in a message list's assistant messages. */
function callIds(messages: readonly SdkMessage[]): string[] {
  return messages.flatMap((message) => (message?.role === 'assistant' && Array.isArray(message.content) ? (message.content as unknown[]).filter(isToolCall).map((part) => part.toolCallId) : []));
}

/** The ids of a finished step's tool calls (Mastra's step result: `toolCalls`, each with its `toolCallId`). */
function stepCallIds(step: unknown): string[] {
  const calls = (step as { toolCalls?: unknown } | null)?.toolCalls;
  return Array.isArray(calls) ? calls.flatMap((call) => (typeof (call as { toolCallId?: unknown } | null)?.toolCallId === 'string' ? [(call as { toolCallId: string }).toolCallId] : [])) : [];
}

/** A step's usage (AI SDK v5's `LanguageModelUsage`, as Mastra reports it) as the host loop records it; undefined when none. */
function stepUsage(usage: unknown): HostLoopUsage | undefined {
  if (typeof usage !== 'object' || usage === null) return undefined;
  const { inputTokens, outputTokens, cachedInputTokens } = usage as { inputTokens?: unknown; outputTokens?: unknown; cachedInputTokens?: unknown };
  return { inputTokens, outputTokens, cachedInputTokens };
}

/**
 * Mastra 0.24 keeps all the steps of one `generate` in one assistant message
 * and one tool message, so each step would rewrite the history before it and
 * the context would start over. `stepOf` (the step a call was issued in, as
 * far as known) splits them back into one assistant message and its tool
 * message per step, in order; text after a call opens the next step.
 */
export function splitSteps(messages: readonly SdkMessage[], stepOf: (toolCallId: string) => number | undefined): SdkMessage[] {
  const split: SdkMessage[] = [];
  for (let index = 0; index < messages.length; index += 1) {
    const message = messages[index]!;
    const next = messages[index + 1];
    if (message.role !== 'assistant' || !Array.isArray(message.content) || next?.role !== 'tool' || !Array.isArray(next.content)) {
      split.push(message);
      continue;
    }
    // Groups of the assistant's parts, one per step: a new one at a call of another step, or at text after a call.
    type Group = { parts: unknown[]; calls: Set<string>; step?: number | undefined };
    const groups: Group[] = [];
    let current: Group | undefined;
    for (const part of message.content as Part[]) {
      const call = isToolCall(part) ? part.toolCallId : undefined;
      const step = call === undefined ? undefined : stepOf(call);
      const opens = current === undefined || (call !== undefined && current.calls.size > 0 && step !== current.step) || (call === undefined && current.calls.size > 0);
      if (opens) groups.push((current = { parts: [], calls: new Set(), step }));
      current!.parts.push(part);
      if (call !== undefined) {
        current!.calls.add(call);
        current!.step = step;
      }
    }
    const results = next.content as Part[];
    const placed = new Set<unknown>();
    for (const group of groups) {
      split.push({ ...message, content: group.parts } as SdkMessage);
      const own = results.filter((part) => typeof part.toolCallId === 'string' && group.calls.has(part.toolCallId));
      own.forEach((part) => placed.add(part));
      if (own.length > 0) split.push({ ...next, content: own } as SdkMessage);
    }
    // Results no call of this message names stay after it, as they came.
    const rest = results.filter((part) => !placed.has(part));
    if (rest.length > 0) split.push({ ...next, content: rest } as SdkMessage);
    index += 1;
  }
  return split;
}

/** The hash of the list's last user message, the key of its run's context; undefined without one. */
function newestRequest(messages: readonly SdkMessage[]): string | undefined {
  const request = messages.findLast((message) => message?.role === 'user');
  return request === undefined ? undefined : createHash('sha256').update(JSON.stringify(request.content) ?? '').digest('base64url');
}

function isToolCall(part: unknown): part is { type: 'tool-call'; toolCallId: string } {
  return typeof part === 'object' && part !== null && (part as { type?: unknown }).type === 'tool-call' && typeof (part as { toolCallId?: unknown }).toolCallId === 'string';
}

/** A Mastra tool as the schema the budget is charged for (a schema zod cannot render: an open object). */
function toolSchema(name: string, definition: MastraToolLike): ToolSchema {
  let parameters: { [key: string]: JsonValue } = { type: 'object' };
  try {
    if (definition?.inputSchema instanceof z.ZodType) parameters = z.toJSONSchema(definition.inputSchema) as { [key: string]: JsonValue };
  } catch {
    // Kept open: the budget still charges the name and description.
  }
  return { name, description: typeof definition?.description === 'string' ? definition.description : '', parameters };
}
