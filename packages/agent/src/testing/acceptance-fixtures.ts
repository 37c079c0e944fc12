// Fixtures of the executor acceptance suite; not exported from the package index.
import { resolveContextConfiguration, type ContextTraceV5, type JsonValue, type Summarizer, type ToolDefinition } from '@strata/context';
import { createModelClient, ScriptedLanguageModel, type ModelClient, type ModelRequest, type ScriptedTurn } from '@strata/model';
import { createMemoryStores, type Stores } from '@strata/store';
import { registerStandardTools, ToolRegistry } from '@strata/tools';
import type { AgentBindings } from '../create-agent-run.js';
import { createUpdatePlanTool } from '../lanes/plan-tool.js';
import { manualTimers } from '@strata/testing';

export const call = (id: string, name: string, input: JsonValue): ScriptedTurn => ({ parts: [{ type: 'tool-call', id, name, input }] });
export const calls = (...list: ReadonlyArray<[string, string, JsonValue]>): ScriptedTurn => ({ parts: list.map(([id, name, input]) => ({ type: 'tool-call' as const, id, name, input })) });
export const answer = (text: string): ScriptedTurn => ({ parts: [{ type: 'text', text }] });

/** A model client that records exactly what it was asked, before the provider adapter sees it. */
export function recordingClient(inner: ModelClient): { client: ModelClient; received: ModelRequest[] } {
  const received: ModelRequest[] = [];
  const client: ModelClient = {
    provider: inner.provider,
    modelId: inner.modelId,
    stream: (request) => {
      received.push(request);
      return inner.stream(request);
    },
  };
  return { client, received };
}

export const PAGE = (page: number): string => `Page ${page}: ` + 'the sample was stable at 21.5 C; '.repeat(30);

/** Reads a page of lab notes: a big, stored result. */
export const readNotesTool: ToolDefinition = {
  name: 'read_notes',
  description: 'Reads one page of the lab notes.',
  parameters: { type: 'object', properties: { page: { type: 'integer' } }, required: ['page'] },
  concurrencySafe: true,
  execute: (input) => ({ content: PAGE((input as { page: number }).page) }),
};

/** A scientific checkpoint with every section the validator wants. */
export const CHECKPOINT = ['## Completed work', '- read the notes', '## Evidence', '- stable at 21.5 C', '## Decisions', '- none', '## Failed or abandoned directions', '- none', '## Pending conditions', '- none', '## Optional directions', '- none', '## Next step', '- go on with the plan'].join('\n');

export function scriptedSummarizer(): { summarizer: Summarizer; calls: () => number } {
  let count = 0;
  return {
    summarizer: { summarize: async () => ((count += 1), CHECKPOINT) },
    calls: () => count,
  };
}

export interface AcceptanceRun {
  readonly bindings: AgentBindings;
  readonly model: ScriptedLanguageModel;
  readonly received: ModelRequest[];
  readonly traces: ContextTraceV5[];
  readonly registry: ToolRegistry;
  readonly stores: Stores;
  readonly clock: ReturnType<typeof manualTimers>;
}

/**
 * The real in-process path with only the model transport scripted: memory
 * stores, the standard tools and `update_plan`, a recording client, traces
 * kept in order, manual timers, and the context settings from `env`.
 */
export function acceptanceRun(options: { script: ScriptedTurn[]; tools?: readonly ToolDefinition[]; env?: Record<string, string>; stores?: Stores; registry?: ToolRegistry; summarizer?: Summarizer; traces?: ContextTraceV5[] }): AcceptanceRun {
  const stores = options.stores ?? createMemoryStores();
  const registry = options.registry ?? new ToolRegistry();
  for (const tool of options.tools ?? []) if (!registry.has(tool.name)) registry.register(tool);
  if (!registry.has('update_plan')) registry.register(createUpdatePlanTool());
  if (!registry.has('read_tool_output')) registerStandardTools({ registry, outputStore: stores.toolOutputs });
  const model = new ScriptedLanguageModel(options.script);
  const { client, received } = recordingClient(createModelClient({ model }));
  const traces = options.traces ?? [];
  const clock = manualTimers();
  const bindings: AgentBindings = {
    model: client,
    tools: registry,
    outputStore: stores.toolOutputs,
    sessionStore: stores.sessions,
    traceSink: { write: async (document) => void traces.push(document.body as ContextTraceV5) },
    summarizer: options.summarizer,
    configuration: resolveContextConfiguration({ STRATA_CONTEXT_WINDOW_TOKENS: '32000', ...options.env }),
    timers: clock.timers,
    now: () => 0,
  };
  return { bindings, model, received, traces, registry, stores, clock };
}

/** The user-role text of an input that holds the projection `id` (a contributed data_only message). */
export function projection(trace: ContextTraceV5, id: string): string | undefined {
  const message = trace.llmInput.messages.find((candidate) => candidate.role === 'user' && candidate.content.includes(`<context_message id="${id}"`));
  return message?.role === 'user' ? message.content : undefined;
}

export function systemPrompt(trace: ContextTraceV5): string {
  const first = trace.llmInput.messages[0];
  return first?.role === 'system' ? first.content : '';
}

/** How often `needle` occurs in everything the model was sent. */
export function occurrences(trace: ContextTraceV5, needle: string): number {
  return JSON.stringify(trace.llmInput.messages).split(needle).length - 1;
}
