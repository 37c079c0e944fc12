import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { resolveContextConfiguration, type ContextTraceV5, type PlanProgress, type Summarizer, type ToolDefinition, type ToolOutputStore } from '@strata/context';
import { createUpdatePlanTool, type AgentBindings, type AgentRunResult } from '@strata/agent';
import { createModelClient, ScriptedLanguageModel, type ScriptedTurn } from '@strata/model';
import { createFileTraceSink, createMemoryStores, type Stores } from '@strata/store';
import { registerStandardTools, ToolRegistry } from '@strata/tools';

/** What an example run did, written as `summary.json` beside its traces. */
export interface ExampleSummary {
  readonly example: 'short' | 'long' | 'delegation';
  readonly description: string;
  readonly stopReason: AgentRunResult['stopReason'];
  /** Model turns of the main run. */
  readonly turns: number;
  /** Every context that wrote traces (the main run, then its children). */
  readonly contextIds: readonly string[];
  /** Trace files, relative to the example's directory, sorted. */
  readonly traceFiles: readonly string[];
  /** Turns of the main run whose assembly compacted the history. */
  readonly compactions: number;
  /** The main run's last planProgress (observation only). */
  readonly planProgress: PlanProgress | null;
  /** What the example is there to show, each checked on its traces. */
  readonly checks: Readonly<Record<string, boolean>>;
}

/** An example's fixed world: scripted models, memory stores, file traces under `outDir/traces`, a clock at zero. */
export interface ExampleWorld {
  readonly stores: Stores;
  readonly registry: ToolRegistry;
  readonly traces: Map<string, ContextTraceV5[]>;
  bindings(options: { script: readonly ScriptedTurn[]; registry?: ToolRegistry; env?: Record<string, string>; summarizer?: Summarizer }): AgentBindings;
}

export async function exampleWorld(options: { outDir: string; tools?: readonly ToolDefinition[] }): Promise<ExampleWorld> {
  await mkdir(options.outDir, { recursive: true });
  const memory = createMemoryStores();
  const stores: Stores = { ...memory, toolOutputs: sequentialReferences(memory.toolOutputs) };
  const registry = new ToolRegistry();
  for (const tool of options.tools ?? []) registry.register(tool);
  registry.register(createUpdatePlanTool());
  registerStandardTools({ registry, outputStore: stores.toolOutputs });
  const files = createFileTraceSink({ directory: join(options.outDir, 'traces') });
  const traces = new Map<string, ContextTraceV5[]>();
  return {
    stores,
    registry,
    traces,
    bindings: ({ script, registry: own, env, summarizer }) => ({
      model: createModelClient({ model: new ScriptedLanguageModel([...script]) }),
      tools: own ?? registry,
      outputStore: stores.toolOutputs,
      sessionStore: stores.sessions,
      traceSink: {
        write: async (document) => {
          traces.set(document.contextId, [...(traces.get(document.contextId) ?? []), document.body as ContextTraceV5]);
          await files.write(document);
        },
      },
      summarizer,
      configuration: resolveContextConfiguration({ STRATA_CONTEXT_WINDOW_TOKENS: '16000', ...env }),
      // A clock at zero: the same example writes the same bytes.
      now: () => 0,
    }),
  };
}

/**
 * Stored outputs under sequential references (`out_example_0001`, ...)
 * instead of random ones, so an example writes the same trace bytes each time.
 */
function sequentialReferences(store: ToolOutputStore): ToolOutputStore {
  const real = new Map<string, string>();
  return {
    async put(output) {
      const ref = await store.put(output);
      const id = `out_example_${String(real.size + 1).padStart(4, '0')}`;
      real.set(id, ref.id);
      return { ...ref, id };
    },
    async get(refId) {
      const stored = await store.get(real.get(refId) ?? refId);
      return stored && { ...stored, ref: { ...stored.ref, id: refId } };
    },
    close: () => store.close(),
  };
}

/** Writes `summary.json` and returns the summary, listing the trace files the example wrote. */
export async function writeSummary(outDir: string, summary: Omit<ExampleSummary, 'traceFiles' | 'contextIds'>, traces: ReadonlyMap<string, readonly ContextTraceV5[]>): Promise<ExampleSummary> {
  const traceFiles = (await listFiles(join(outDir, 'traces'))).map((file) => relative(outDir, file)).sort();
  const complete: ExampleSummary = { ...summary, contextIds: [...traces.keys()], traceFiles };
  await writeFile(join(outDir, 'summary.json'), `${JSON.stringify(complete, null, 2)}\n`);
  return complete;
}

async function listFiles(directory: string): Promise<string[]> {
  const entries = await readdir(directory, { withFileTypes: true }).catch(() => []);
  const nested = await Promise.all(entries.map((entry) => (entry.isDirectory() ? listFiles(join(directory, entry.name)) : [join(directory, entry.name)])));
  return nested.flat();
}

export const call = (id: string, name: string, input: Record<string, unknown>): ScriptedTurn => ({ parts: [{ type: 'tool-call', id, name, input: input as never }] });
export const answer = (text: string): ScriptedTurn => ({ parts: [{ type: 'text', text }] });

/** The system prompt and the contributed data message `id` of a traced input. */
export function systemPromptOf(trace: ContextTraceV5): string {
  const first = trace.llmInput.messages[0];
  return first?.role === 'system' ? first.content : '';
}

export function projectionOf(trace: ContextTraceV5, id: string): string | undefined {
  const message = trace.llmInput.messages.find((candidate) => candidate.role === 'user' && candidate.content.includes(`<context_message id="${id}"`));
  return message?.role === 'user' ? message.content : undefined;
}

/** A page of lab notes: a large stored result, so long runs cross the compaction threshold. */
export const readNotesTool: ToolDefinition = {
  name: 'read_notes',
  description: 'Reads one page of the lab notes.',
  parameters: { type: 'object', properties: { page: { type: 'integer' } }, required: ['page'] },
  concurrencySafe: true,
  execute: (input) => ({ content: `Page ${(input as { page: number }).page}: ` + 'the sample was stable at 21.5 C; '.repeat(30) }),
};

/** A checkpoint with every section the validator wants, for the scripted summarizer. */
export const CHECKPOINT = ['## Completed work', '- read the early pages', '## Evidence', '- stable at 21.5 C', '## Decisions', '- none', '## Failed or abandoned directions', '- none', '## Pending conditions', '- none', '## Optional directions', '- none', '## Next step', '- read the remaining pages'].join('\n');
export const scriptedSummarizer: Summarizer = { summarize: async () => CHECKPOINT };
