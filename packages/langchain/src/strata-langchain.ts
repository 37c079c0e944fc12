import { AIMessage, SystemMessage, type BaseMessage } from '@langchain/core/messages';
import { AsyncLocalStorageProviderSingleton } from '@langchain/core/singletons';
import { DynamicStructuredTool, type ClientTool, type ServerTool } from '@langchain/core/tools';
import { toJsonSchema } from '@langchain/core/utils/json_schema';
import { createMiddleware } from 'langchain';
import { createHostLoopContext, ToolCallContexts, type CreateHostLoopContextOptions, type ImportedMessage, type JsonValue, type SessionStore, type ToolOutputStore, type ToolSchema } from '@strata/context';
import { createMemorySessionStore, createMemoryToolOutputStore } from '@strata/store';
import { createReadToolOutputTool, hostToolResultStore, type ReadToolOutputToolOptions } from '@strata/tools';
import { importLangChainMessages, toLangChainMessage } from './langchain-history.js';

export interface StrataLangChainOptions extends Omit<CreateHostLoopContextOptions, 'outputStore' | 'sessionStore'> {
  /**
   * The conversation's id in stores and traces. Default: the run's
   * `configurable.thread_id` when it has one (each thread its own context),
   * else each run its own, by its opening and the stored context its
   * messages continue (ids `langchain:<opening>.<n>`), so concurrent runs
   * never share a stored output or a search.
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
  /** Settings of the `read_tool_output` tool. */
  readonly readToolOutput?: Omit<ReadToolOutputToolOptions, 'store'>;
}

export interface StrataLangChain {
  /** For `createAgent({ middleware: [strata.middleware] })`: each model call gets the messages Strata chose. */
  readonly middleware: ReturnType<typeof createMiddleware>;
  /** `read_tool_output` as a LangChain tool; add it to the agent's tools. */
  readonly readToolOutput: DynamicStructuredTool;
  readonly outputStore: ToolOutputStore;
}

/** The prefix of each run's context id, and the context of a `read_tool_output` call no model call issued. */
const SCOPE = 'langchain';

/**
 * Strata inside a LangChain.js 1.x `createAgent`. In the model-call hook
 * Strata decides the window under the budget (the agent's system prompt
 * charged with it), compacts (large tool results become previews with a
 * `read_tool_output` reference), never splits a tool call from its results,
 * and writes a trace per call to `traceSink` when one is given. The agent's
 * state keeps every message: only the model call sees the window.
 * Unchanged messages reach the model as the agent's own message objects.
 */
export function createStrataLangChain(options: StrataLangChainOptions): StrataLangChain {
  const { contextId, readToolOutput, ...settings } = options;
  const contextOf = (threadId: unknown): string | undefined => contextId ?? (typeof threadId === 'string' && threadId !== '' ? threadId : undefined);
  // How `read_tool_output` finds its run's context: the agent's state holds the very message of the model call that issued the call.
  const responses = new WeakMap<BaseMessage, string>();
  const calls = new ToolCallContexts();
  const outputStore = options.outputStore ?? createMemoryToolOutputStore();
  const sessionStore = options.sessionStore ?? createMemorySessionStore();
  const context = createHostLoopContext<BaseMessage>({ ...settings, outputStore, sessionStore, storeResult: hostToolResultStore(outputStore) });
  const readTool = createReadToolOutputTool({ ...readToolOutput, store: outputStore });

  const middleware = createMiddleware({
    name: 'StrataContextMiddleware',
    wrapModelCall: async (request, handler) => {
      // langchain 1.0 gives the system prompt as text (`systemPrompt`); later releases as a message (`systemMessage`), the one to change.
      const givenMessage = (request as { systemMessage?: SystemMessage }).systemMessage;
      const givenPrompt = (request as { systemPrompt?: unknown }).systemPrompt;
      const systemMessage = givenMessage ?? (typeof givenPrompt === 'string' && givenPrompt !== '' ? new SystemMessage(givenPrompt) : undefined);
      const system: ImportedMessage<BaseMessage>[] = systemMessage === undefined || systemText(systemMessage) === '' ? [] : [{ message: { role: 'system', content: systemText(systemMessage) }, origin: systemMessage }];
      const turn = await context.prepare({
        // langchain 1.0 leaves the runtime's configurable empty: the run's config (LangChain's own async context) names the thread there.
        contextId: contextOf(request.runtime.configurable?.thread_id ?? (AsyncLocalStorageProviderSingleton.getRunnableConfig() as { configurable?: { thread_id?: unknown } } | undefined)?.configurable?.thread_id),
        scope: SCOPE,
        messages: [...system, ...importLangChainMessages(request.messages)],
        tools: toolSchemas(request.tools),
        signal: request.runtime.signal,
        // The response's usage_metadata is fed back below: the trace waits for it.
        reportsUsage: true,
      });
      const leading = turn.messages.filter(({ message }) => message.role === 'system');
      const messages = turn.messages.filter(({ message }) => message.role !== 'system').map(({ message, origin }) => origin ?? toLangChainMessage(message));
      const keepsSystem = leading.length === system.length && leading.every(({ origin }) => origin === systemMessage);
      // The agent takes a change of `systemMessage` or of `systemPrompt`, not both: only the one it gave changes here.
      const leadingText = leading.map(({ message }) => message.content).join('\n\n');
      const systemChange = keepsSystem ? {} : givenMessage !== undefined || givenPrompt === undefined ? { systemMessage: new SystemMessage(leadingText) } : { systemPrompt: leadingText };
      const started = performance.now();
      let response: Awaited<ReturnType<typeof handler>>;
      try {
        response = await handler({ ...request, messages, ...systemChange });
      } catch (error) {
        await context.recordUsage(turn, { error, modelMs: performance.now() - started });
        throw error;
      }
      // Usage feedback: the provider's input count (usage_metadata.input_tokens) against ours, before the next call assembles.
      const usage = AIMessage.isInstance(response) ? response.usage_metadata : undefined;
      await context.recordUsage(turn, {
        usage: usage && { inputTokens: usage.input_tokens, outputTokens: usage.output_tokens, cachedInputTokens: usage.input_token_details?.cache_read, cacheWriteInputTokens: usage.input_token_details?.cache_creation },
        modelMs: performance.now() - started,
      });
      if (AIMessage.isInstance(response)) {
        responses.set(response, turn.contextId);
        calls.issued(turn.contextId, (response.tool_calls ?? []).flatMap((call) => (call.id ? [call.id] : [])));
      }
      return response;
    },
  });

  const readToolOutputTool = new DynamicStructuredTool({
    name: readTool.name,
    description: readTool.description ?? '',
    // A copy: the JSON Schema validator annotates the schema object, and ours is frozen.
    schema: structuredClone(readTool.parameters) as Record<string, unknown>,
    func: async (input: Record<string, unknown>, _runManager, config) => {
      const toolCallId = (config as { toolCall?: { id?: string } } | undefined)?.toolCall?.id ?? '';
      const state = (config as { state?: { messages?: unknown } } | undefined)?.state;
      const issuer = Array.isArray(state?.messages) ? state.messages.findLast((message): message is AIMessage => AIMessage.isInstance(message) && (message.tool_calls ?? []).some((call) => call.id === toolCallId)) : undefined;
      const run = contextOf(config?.configurable?.thread_id) ?? (issuer && responses.get(issuer)) ?? (await calls.contextOf(toolCallId, input, outputStore)) ?? SCOPE;
      const outcome = await readTool.execute(input as JsonValue, { contextId: run, toolCallId, signal: config?.signal ?? new AbortController().signal });
      return outcome.content;
    },
  });
  return { middleware, readToolOutput: readToolOutputTool, outputStore };
}

/** The text of a system message, whatever its content form. */
function systemText(message: SystemMessage): string {
  return typeof message.content === 'string' ? message.content : message.text;
}

/** The agent's tools as the schemas the budget is charged for. */
function toolSchemas(tools: ReadonlyArray<ClientTool | ServerTool>): ToolSchema[] {
  return tools.map((definition) => {
    const named = definition as { name?: unknown; description?: unknown; schema?: unknown };
    const name = typeof named.name === 'string' ? named.name : 'server_tool';
    const description = typeof named.description === 'string' ? named.description : '';
    if (named.schema === undefined) return { name, description, parameters: definition as Record<string, unknown> };
    return { name, description, parameters: toJsonSchema(named.schema as Parameters<typeof toJsonSchema>[0]) as Record<string, unknown> };
  });
}
