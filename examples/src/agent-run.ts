// A whole agent run with no network: a scripted model calls a tool that
// returns large reports, under a small context window. Prints, turn by turn,
// what Strata sent and why, and writes the v5 traces. Run: npm run example
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAgentRun, type AgentEvent } from '@strata/agent';
import { resolveContextConfiguration, type ToolDefinition } from '@strata/context';
import { createModelClient, ScriptedLanguageModel, type ScriptedTurn } from '@strata/model';
import { createFileTraceSink, openDefaultStores } from '@strata/store';
import { registerStandardTools, ToolRegistry } from '@strata/tools';

const report = (sample: string) =>
  [`Spectrum of ${sample}`, ...Array.from({ length: 120 }, (_, line) => `${400 + line} nm: intensity ${(Math.sin(line) * 100).toFixed(2)} 峰值 ${line}`)].join('\n');

const measure: ToolDefinition = {
  name: 'measure_spectrum',
  description: 'Measures a sample and returns the full spectrum report.',
  parameters: { type: 'object', properties: { sample: { type: 'string' } }, required: ['sample'] },
  execute: (input) => ({ content: report((input as { sample: string }).sample) }),
};

const script: ScriptedTurn[] = ['A', 'B', 'C', 'D', 'E'].map((sample, index) => ({
  parts: [{ type: 'tool-call', id: `call_${index}`, name: 'measure_spectrum', input: { sample } }],
  usage: { inputTokens: 0, outputTokens: 12 },
}));
script.push({ parts: [{ type: 'text', text: 'All five spectra measured; sample C peaks at 402 nm.' }] });

const dataDir = await mkdtemp(join(tmpdir(), 'strata-example-'));
const stores = openDefaultStores({ dataDir });
const tools = new ToolRegistry();
tools.register(measure);
registerStandardTools({ registry: tools, outputStore: stores.toolOutputs });

const run = createAgentRun(
  { id: 'spectra-agent' },
  {
    model: createModelClient({ model: new ScriptedLanguageModel(script) }),
    tools,
    outputStore: stores.toolOutputs,
    sessionStore: stores.sessions,
    traceSink: createFileTraceSink({ directory: join(dataDir, 'context-traces') }),
    configuration: resolveContextConfiguration({ SCIENCE_AGENT_CONTEXT_WINDOW_TOKENS: '6000' }),
  },
  {
    contextId: 'spectra',
    prompt: 'Measure samples A to E and tell me which peaks first.',
    onEvent: (event: AgentEvent) => {
      if (event.type === 'context-assembled') {
        const { budget, renderedContext, compaction } = event.trace;
        const masked = renderedContext!.history.filter((message) => message.role === 'tool' && message.masked).length;
        console.log(
          `turn ${event.turn}: sent ${budget!.totalTokens} of ${budget!.inputCapTokens} tokens (${budget!.countedWith}); ` +
            `${renderedContext!.window.keptMessages}/${renderedContext!.window.historyMessages} messages kept; ` +
            `${masked} tool results as preview + ref${compaction.reason ? `; compaction: ${compaction.reason}, ${compaction.estimatedTokensBefore} -> ${compaction.estimatedTokensAfter} tokens` : ''}`,
        );
      }
    },
  },
);
const result = await run.execute();
await stores.close();
console.log(`\n${result.stopReason} after ${result.turns} turns: ${result.text}`);
console.log(`traces: ${join(dataDir, 'context-traces', 'spectra')}`);
