import { tool, type AgentInputItem, type CallModelInputFilter, type FunctionTool } from '@openai/agents-core';
import { createHostLoopContext, type CreateHostLoopContextOptions, type ImportedMessage, type JsonValue, type SessionStore, type ToolOutputStore, type ToolSchema } from '@strata/context';
import { createMemorySessionStore, createMemoryToolOutputStore } from '@strata/store';
import { createReadToolOutputTool, hostToolResultStore, type ReadToolOutputToolOptions } from '@strata/tools';
import { importAgentItems, toAgentItems } from './agents-history.js';

export interface StrataOpenAIAgentsOptions extends Omit<CreateHostLoopContextOptions, 'outputStore' | 'sessionStore'> {
  /** The conversation's id in stores and traces. Default `"openai-agents"`. */
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

const DEFAULT_CONTEXT_ID = 'openai-agents';
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
  const { contextId = DEFAULT_CONTEXT_ID, tools = [], readToolOutput, ...settings } = options;
  const outputStore = options.outputStore ?? createMemoryToolOutputStore();
  const sessionStore = options.sessionStore ?? createMemorySessionStore();
  const context = createHostLoopContext<AgentInputItem[]>({ ...settings, outputStore, sessionStore, storeResult: hostToolResultStore(outputStore) });
  const readTool = createReadToolOutputTool({ ...readToolOutput, store: outputStore });
  // `read_tool_output` is charged too: the user adds it to the agent's tools (a duplicate by name counts once).
  const chargedTools = [...tools.filter((schema) => schema.name !== readTool.name), readTool];

  const callModelInputFilter: CallModelInputFilter = async ({ modelData }) => {
    const instructions: ImportedMessage<AgentInputItem[]>[] = modelData.instructions ? [{ message: { role: 'system', content: modelData.instructions }, origin: INSTRUCTIONS }] : [];
    const turn = await context.prepare({ contextId, messages: [...instructions, ...importAgentItems(modelData.input)], tools: chargedTools });
    const leading = turn.messages.filter(({ message }) => message.role === 'system');
    const input = turn.messages.filter(({ message }) => message.role !== 'system').flatMap(({ message, origin }) => origin ?? toAgentItems(message));
    return { input, instructions: leading.length === 0 ? undefined : leading.map(({ message }) => message.content).join('\n\n') };
  };

  const readToolOutputTool = tool({
    name: readTool.name,
    description: readTool.description ?? '',
    parameters: structuredClone(readTool.parameters) as unknown as NonStrictParameters,
    strict: false,
    async execute(input, _runContext, details) {
      const outcome = await readTool.execute(input as JsonValue, { contextId, toolCallId: details?.toolCall?.callId ?? '', signal: new AbortController().signal });
      return outcome.content;
    },
  });
  return { callModelInputFilter, readToolOutput: readToolOutputTool, outputStore };
}
