// Placeholder until the three reproducible examples land here (their owner
// replaces this file): one small scripted run per example, so
// `strata examples` and its tests have traces to show. No network, no key.
import { resolveContextConfiguration, type ToolDefinition } from '@strata/context';
import { createAgentRun } from '@strata/agent';
import { createModelClient, ScriptedLanguageModel, type ScriptedTurn } from '@strata/model';
import { createFileTraceSink, createMemoryStores } from '@strata/store';
import { registerStandardTools, ToolRegistry } from '@strata/tools';

export interface ExampleSummary {
  readonly name: string;
  readonly traceDir: string;
  readonly turns: number;
  readonly stopReason: string;
}

const report = Array.from({ length: 300 }, (_, index) => `line ${index}: reading ${index * 7} ok`).join('\n');
const measure: ToolDefinition = {
  name: 'measure',
  description: 'Runs a measurement and returns its full report.',
  parameters: { type: 'object', properties: { sample: { type: 'string' } }, required: ['sample'] },
  execute: (input) => ({ content: `report for ${(input as { sample: string }).sample}\n${report}` }),
};

async function scriptedExample(name: string, samples: number, options: { outDir: string }): Promise<ExampleSummary> {
  const script: ScriptedTurn[] = [
    ...Array.from({ length: samples }, (_, index): ScriptedTurn => ({ parts: [{ type: 'tool-call', id: `call_${index + 1}`, name: 'measure', input: { sample: `S${index + 1}` } }], usage: { inputTokens: 1_000 + index * 900, outputTokens: 12 } })),
    { parts: [{ type: 'text', text: `All ${samples} samples read ok.` }], usage: { inputTokens: 1_200, outputTokens: 9 } },
  ];
  const stores = createMemoryStores();
  const tools = new ToolRegistry();
  tools.register(measure);
  registerStandardTools({ registry: tools, outputStore: stores.toolOutputs });
  const run = createAgentRun(
    { id: name, sections: { identity: 'You are a careful lab agent.' } },
    {
      model: createModelClient({ model: new ScriptedLanguageModel(script) }),
      tools,
      outputStore: stores.toolOutputs,
      sessionStore: stores.sessions,
      traceSink: createFileTraceSink({ directory: options.outDir }),
      configuration: resolveContextConfiguration({ STRATA_CONTEXT_WINDOW_TOKENS: '6000' }),
    },
    { contextId: name, prompt: `Measure samples S1 to S${samples} and report.` },
  );
  const result = await run.execute();
  return { name, traceDir: options.outDir, turns: result.turns, stopReason: result.stopReason };
}

export const runShortExample = (options: { outDir: string }) => scriptedExample('short', 2, options);
export const runLongExample = (options: { outDir: string }) => scriptedExample('long', 8, options);
export const runDelegationExample = (options: { outDir: string }) => scriptedExample('delegation', 3, options);
