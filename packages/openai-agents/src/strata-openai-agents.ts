import { tool, type Agent, type AgentInputItem, type CallModelInputFilter, type FunctionTool } from '@openai/agents-core';
import { BoundedCache, createHostLoopContext, PendingUsage, type CreateHostLoopContextOptions, type HostLoopTurn, type HostLoopUsage, type ImportedMessage, type JsonValue, type SessionStore, type ToolOutputStore, type ToolSchema } from '@strata/context';
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
  /** Resolves once every usage report begun (a run's end, told by its `agent_end` event) has been fed back and its trace written. */
  readonly settled: () => Promise<void>;
}

/** The prefix of each run's context id, and the context of a `read_tool_output` call of a run not yet known. */
const SCOPE = 'openai-agents';
/** Tool calls whose run a filter keeps until the run's next model call shows them. */
const CALLS_KEPT = 4_096;
/** Runs remembered per context value shared by runs (a failed run never ends and is forgotten past this many). */
const RUNS_KEPT_PER_VALUE = 16;
/** The SDK's type of a non-strict JSON Schema for `tool()` parameters (not exported by name). */
type NonStrictParameters = Extract<Parameters<typeof tool>[0], { strict: false }>['parameters'];
/** The origin of the agent's instructions, which the filter returns apart from the items. */
const INSTRUCTIONS: AgentInputItem[] = [];

/**
 * Strata inside an OpenAI Agents SDK run. Before each model call Strata
 * decides the window under the budget (the agent's instructions charged with
 * it), compacts (large tool outputs become previews with a `read_tool_output`
 * reference), never splits a function call from its result, and writes a
 * trace per call to `traceSink` when one is given, with what the provider
 * reported of that call (fed back at the run's next call, the last at the
 * run's `agent_end`). The run's own items are
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
  // Usage feedback: the filter is told the run's own context value (`run(..., { context })`, a new `{}` by default), the events
  // the run's `RunContext` with its usage. Each call waits, its trace held, until its run's next call or its end. Runs may share
  // one value, one after another or at once, so a call is credited only with usage that is surely its own: that of the run its
  // own tool calls name, when that run has made exactly one request since; or, for a call that names no run (a run's first),
  // that of the one run seen with the value, when that run has made every request of the value's calls up to this one.
  const values = new WeakMap<object, { readonly runs: Set<object>; calls: number }>();
  const valueOf = (value: object) => {
    let known = values.get(value);
    if (known === undefined) values.set(value, (known = { runs: new Set<object>(), calls: 0 }));
    return known;
  };
  const pending = new PendingUsage<object, { turn: HostLoopTurn<AgentInputItem[]>; value: object; run: object | undefined; requests: number }>();
  const learn = (runContext: unknown): void => {
    const value = (runContext as { context?: unknown } | null | undefined)?.context;
    if (typeof value !== 'object' || value === null) return;
    const { runs } = valueOf(value);
    runs.add(runContext as object);
    // Runs that failed never end: past RUNS_KEPT_PER_VALUE the oldest are forgotten (one still going is seen again at its next event).
    for (const oldest of runs) if (runs.size > RUNS_KEPT_PER_VALUE) runs.delete(oldest);
  };
  /** Feeds back the usage of the call waiting under `key` (its run, or the value of a call that named none) and writes its trace. */
  const report = async (key: object): Promise<void> => {
    const waiting = pending.take(key);
    if (waiting === undefined) return;
    const runs = values.get(waiting.value)?.runs;
    const run = waiting.run ?? (runs?.size === 1 ? [...runs][0] : undefined);
    const credited = run !== undefined && requestsOf(run) === waiting.requests + 1 ? run : undefined;
    await context.recordUsage(waiting.turn, { usage: credited === undefined ? undefined : lastRequestUsage(credited) });
  };
  /** The reports begun by `agent_end` and not yet written (`settled`). */
  const inFlight = new Set<Promise<unknown>>();
  const watched = new WeakSet<object>();
  const watch = (agent: Agent<any, any>): void => {
    if (watched.has(agent)) return;
    watched.add(agent);
    agent.on('agent_start', (runContext) => learn(runContext));
    agent.on('agent_tool_start', (runContext, _tool, details) => {
      learn(runContext);
      const callId = (details as { toolCall?: { callId?: unknown } } | undefined)?.toolCall?.callId;
      if (typeof callId !== 'string') return;
      // One call id in two runs (models that number their calls) names neither.
      const known = callRuns.get(callId);
      callRuns.set(callId, known === undefined || known === runContext ? runContext : null);
    });
    // The run's last call: its usage is told at the end of the run, with the agent that answered.
    agent.on('agent_end', (runContext) => {
      learn(runContext);
      const value = (runContext as { context?: unknown }).context;
      if (typeof value === 'object' && value !== null) {
        const reported = Promise.all([report(runContext), report(value)])
          .catch(() => undefined)
          .finally(() => {
            // The run's calls are accounted for: a later run with the value starts afresh.
            const known = valueOf(value);
            if (known.runs.delete(runContext)) known.calls = Math.max(0, known.calls - requestsOf(runContext));
          });
        inFlight.add(reported);
        void reported.then(() => inFlight.delete(reported));
      }
    });
    // The agents a handoff may pass the run to: their first call's start is seen too.
    for (const handoff of (agent as { handoffs?: readonly unknown[] }).handoffs ?? []) {
      const target = (handoff as { agent?: unknown }).agent ?? handoff;
      if (typeof (target as { on?: unknown }).on === 'function') watch(target as Agent<any, any>);
    }
  };

  const callModelInputFilter: CallModelInputFilter = async ({ modelData, agent, context: value }) => {
    watch(agent);
    const instructions: ImportedMessage<AgentInputItem[]>[] = modelData.instructions ? [{ message: { role: 'system', content: modelData.instructions }, origin: INSTRUCTIONS }] : [];
    // The run of this call: by its context value, else (a value shared by runs) by its tool calls.
    const runs = new Set<object>();
    for (const item of modelData.input) {
      const runContext = item.type === 'function_call' ? callRuns.get(item.callId) : undefined;
      if (runContext) runs.add(runContext);
    }
    const run = typeof value === 'object' && value !== null ? value : undefined;
    // The run of this call when its own tool calls name one.
    const owner = runs.size === 1 ? [...runs][0] : undefined;
    if (owner !== undefined) await report(owner);
    if (run !== undefined) await report(run);
    const turn = await context.prepare({ contextId, scope: SCOPE, messages: [...instructions, ...importAgentItems(modelData.input)], tools: chargedTools, reportsUsage: run !== undefined });
    if (run !== undefined) {
      const known = valueOf(run);
      const waiting = owner === undefined ? { turn, value: run, run: undefined, requests: known.calls } : { turn, value: run, run: owner, requests: requestsOf(owner) };
      known.calls += 1;
      // A run that never ended (a failed call, a run given up): its last trace is written without usage.
      for (const expired of pending.add(owner ?? run, waiting)) await context.recordUsage(expired.turn, {});
    }
    for (const runContext of runs) runContexts.set(runContext, turn.contextId);
    const seen = run === undefined ? undefined : values.get(run)?.runs;
    if (runs.size === 0 && seen?.size === 1) runContexts.set([...seen][0]!, turn.contextId);
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
  const settled = async (): Promise<void> => {
    while (inFlight.size > 0) await Promise.all([...inFlight]);
  };
  return { callModelInputFilter, readToolOutput: readToolOutputTool, outputStore, settled };
}

/** The model requests a run has made so far, by its usage. */
function requestsOf(runContext: object): number {
  const usage = (runContext as { usage?: { requests?: unknown; requestUsageEntries?: readonly unknown[] } }).usage;
  if (typeof usage?.requests === 'number') return usage.requests;
  return usage?.requestUsageEntries?.length ?? 0;
}

/**
 * What the provider reported for a run's last model request: the newest of
 * the run's per-request usage entries (`usage.requestUsageEntries`), else
 * the run's total while it has made one request; undefined when neither.
 */
function lastRequestUsage(runContext: object): HostLoopUsage | undefined {
  type Counts = { inputTokens?: unknown; outputTokens?: unknown; inputTokensDetails?: { cached_tokens?: unknown } | ReadonlyArray<{ cached_tokens?: unknown }> };
  const usage = (runContext as { usage?: Counts & { requests?: unknown; requestUsageEntries?: readonly Counts[] } }).usage;
  const entry = usage?.requestUsageEntries?.at(-1) ?? (usage?.requests === 1 ? usage : undefined);
  if (entry === undefined) return undefined;
  const details = Array.isArray(entry.inputTokensDetails) ? entry.inputTokensDetails.at(-1) : entry.inputTokensDetails;
  return { inputTokens: entry.inputTokens, outputTokens: entry.outputTokens, cachedInputTokens: (details as { cached_tokens?: unknown } | undefined)?.cached_tokens };
}
