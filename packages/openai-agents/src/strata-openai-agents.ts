import { tool, type Agent, type AgentInputItem, type CallModelInputFilter, type FunctionTool } from '@openai/agents-core';
import { BoundedCache, createHostLoopContext, type CreateHostLoopContextOptions, type ImportedMessage, type JsonValue, type SessionStore, type ToolOutputStore, type ToolSchema } from '@strata/context';
import { createMemorySessionStore, createMemoryToolOutputStore } from '@strata/store';
import { createReadToolOutputTool, hostToolResultStore, type ReadToolOutputToolOptions } from '@strata/tools';
import { importAgentItems, toAgentItems } from './agents-history.js';

export interface StrataOpenAIAgentsOptions extends Omit<CreateHostLoopContextOptions, 'outputStore' | 'sessionStore'> {
  /**
   * The conversation's id in stores and traces, shared by every run given
   * this instance. Default: each run its own context, by its opening and the
   * stored context its items continue (ids `openai-agents:<opening>.<n>`),
   * so concurrent runs never share a stored output or a search.
   * `read_tool_output` learns its run's context from the run's tool calls
   * (the agents' `agent_tool_start` events) at the run's next model call:
   * in a run's first tool step it finds no stored output yet.
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
  /** The agent's tools as JSON Schemas, so their size is charged to the budget (the filter is not told them; `read_tool_output` is always charged). */
  readonly tools?: readonly ToolSchema[];
  /** Settings of the `read_tool_output` tool. */
  readonly readToolOutput?: Omit<ReadToolOutputToolOptions, 'store'>;
}

export interface StrataOpenAIAgents {
  /** For `run(agent, input, { callModelInputFilter })` or `new Runner({ callModelInputFilter })`. */
  readonly callModelInputFilter: CallModelInputFilter;
  /** `read_tool_output` in the SDK's `tool()` form; add it to the agent's tools. */
  readonly readToolOutput: FunctionTool;
  readonly outputStore: ToolOutputStore;
}

/** The prefix of each run's context id, and the context of a `read_tool_output` call of a run not yet known. */
const SCOPE = 'openai-agents';
/** Tool calls whose run a filter keeps until the run's next model call shows them. */
const CALLS_KEPT = 4_096;
/** The SDK's type of a non-strict JSON Schema for `tool()` parameters (not exported by name). */
type NonStrictParameters = Extract<Parameters<typeof tool>[0], { strict: false }>['parameters'];
/** The origin of the agent's instructions, which the filter returns apart from the items. */
const INSTRUCTIONS: AgentInputItem[] = [];

/**
 * Strata inside an OpenAI Agents SDK run. Before each model call Strata
 * decides the window under the budget (the agent's instructions charged with
 * it), compacts (large tool outputs become previews with a `read_tool_output`
 * reference), never splits a function call from its result, and writes a
 * trace per call to `traceSink` when one is given. The run's own items are
 * never changed; unchanged items reach the model as the run's own objects.
 */
export function createStrataOpenAIAgents(options: StrataOpenAIAgentsOptions): StrataOpenAIAgents {
  const { contextId, tools = [], readToolOutput, ...settings } = options;
  const outputStore = options.outputStore ?? createMemoryToolOutputStore();
  const sessionStore = options.sessionStore ?? createMemorySessionStore();
  const context = createHostLoopContext<AgentInputItem[]>({ ...settings, outputStore, sessionStore, storeResult: hostToolResultStore(outputStore) });
  const readTool = createReadToolOutputTool({ ...readToolOutput, store: outputStore });
  // `read_tool_output` is charged too: the user adds it to the agent's tools (a duplicate by name counts once).
  const chargedTools = [...tools.filter((schema) => schema.name !== readTool.name), readTool];

  // How `read_tool_output` finds its run's context: the filter is told nothing of the run, a tool its run context. Each tool call
  // of a run is recorded with the run context (`agent_tool_start`); the run's next model call shows the call, and so its context.
  const callRuns = new BoundedCache<string, object | null>(CALLS_KEPT);
  const runContexts = new WeakMap<object, string>();
  const watched = new WeakSet<Agent<any, any>>();
  const watch = (agent: Agent<any, any>): void => {
    if (watched.has(agent)) return;
    watched.add(agent);
    agent.on('agent_tool_start', (runContext, _tool, details) => {
      const callId = (details as { toolCall?: { callId?: unknown } } | undefined)?.toolCall?.callId;
      if (typeof callId !== 'string') return;
      // One call id in two runs (models that number their calls) names neither.
      const known = callRuns.get(callId);
      callRuns.set(callId, known === undefined || known === runContext ? runContext : null);
    });
  };

  const callModelInputFilter: CallModelInputFilter = async ({ modelData, agent }) => {
    watch(agent);
    const instructions: ImportedMessage<AgentInputItem[]>[] = modelData.instructions ? [{ message: { role: 'system', content: modelData.instructions }, origin: INSTRUCTIONS }] : [];
    // The run of this call, known from the second call on (by its tool calls): its usage holds the previous call's input count.
    const runs = new Set<object>();
    for (const item of modelData.input) {
      const runContext = item.type === 'function_call' ? callRuns.get(item.callId) : undefined;
      if (runContext) runs.add(runContext);
    }
    const previousInputTokens = runs.size === 1 ? lastRequestInputTokens([...runs][0]!) : undefined;
    const turn = await context.prepare({ contextId, scope: SCOPE, messages: [...instructions, ...importAgentItems(modelData.input)], tools: chargedTools, previousInputTokens });
    for (const runContext of runs) runContexts.set(runContext, turn.contextId);
    const leading = turn.messages.filter(({ message }) => message.role === 'system');
    const input = turn.messages.filter(({ message }) => message.role !== 'system').flatMap(({ message, origin }) => origin ?? toAgentItems(message));
    return { input, instructions: leading.length === 0 ? undefined : leading.map(({ message }) => message.content).join('\n\n') };
  };

  const readToolOutputTool = tool({
    name: readTool.name,
    description: readTool.description ?? '',
    parameters: structuredClone(readTool.parameters) as unknown as NonStrictParameters,
    strict: false,
    async execute(input, runContext, details) {
      const run = contextId ?? (runContext === undefined ? undefined : runContexts.get(runContext)) ?? SCOPE;
      const outcome = await readTool.execute(input as JsonValue, { contextId: run, toolCallId: details?.toolCall?.callId ?? '', signal: details?.signal ?? new AbortController().signal });
      return outcome.content;
    },
  });
  return { callModelInputFilter, readToolOutput: readToolOutputTool, outputStore };
}

/**
 * What the provider counted of a run's last model request: the newest of the
 * run's per-request usage entries (`usage.requestUsageEntries`), else the
 * run's total while it has made one request.
 */
function lastRequestInputTokens(runContext: object): unknown {
  const usage = (runContext as { usage?: { requests?: unknown; inputTokens?: unknown; requestUsageEntries?: ReadonlyArray<{ inputTokens?: unknown }> } }).usage;
  const entry = usage?.requestUsageEntries?.at(-1);
  if (entry !== undefined) return entry.inputTokens;
  return usage?.requests === 1 ? usage.inputTokens : undefined;
}
