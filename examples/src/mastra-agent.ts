// Strata inside a Mastra 0.24 agent's loop: its prepareStep, onFinish and read_tool_output as a Mastra tool. Runs with
// no key: the model is a small scripted LanguageModelV2 (the spec Mastra 0.24 runs) that reads a long log five times.
// Run: npm run build, then node examples/dist/mastra-agent.js
import { Agent } from '@mastra/core/agent';
import { createTool } from '@mastra/core/tools';
import { z } from 'zod';
import { createStrataMastra } from '@strata/mastra';

const readLog = createTool({
  id: 'read_log',
  description: 'Reads part of the build log.',
  inputSchema: z.object({ part: z.number().int() }),
  execute: async ({ context }) => Array.from({ length: 200 }, (_, line) => `part ${context.part} line ${line}: ${line % 50 === 0 ? 'ERROR flaky test' : 'ok'}`).join('\n'),
});

type Prompt = Array<{ role: string; content: unknown }>;
const prompts: Prompt[] = [];
/** Reads parts 1 to 5, then answers; usage says 10 input tokens a call. */
const model = {
  specificationVersion: 'v2' as const,
  provider: 'example',
  modelId: 'scripted',
  supportedUrls: {},
  async doGenerate(options: { prompt: Prompt }) {
    prompts.push(options.prompt);
    const part = prompts.length;
    const usage = { inputTokens: 10, outputTokens: 1, totalTokens: 11 };
    if (part > 5) return { content: [{ type: 'text' as const, text: 'The log shows a flaky test in every part.' }], finishReason: 'stop' as const, usage, warnings: [] };
    return { content: [{ type: 'tool-call' as const, toolCallId: `call-${part}`, toolName: 'read_log', input: JSON.stringify({ part }) }], finishReason: 'tool-calls' as const, usage, warnings: [] };
  },
  async doStream(): Promise<never> {
    throw new Error('this example does not stream');
  },
};

// The few lines a user adds: a budget, the instructions and tools Strata charges, prepareStep and onFinish, read_tool_output.
const instructions = 'You read build logs.';
const strata = createStrataMastra({ budget: { inputCapTokens: 8_000 }, instructions, tools: { read_log: readLog } });
const agent = new Agent({ name: 'log reader', instructions, model: model as never, tools: { read_log: readLog, read_tool_output: strata.readToolOutput } });
const result = await agent.generate('Read the five parts of the build log and tell me what failed.', { maxSteps: 10, prepareStep: strata.prepareStep, onFinish: strata.onFinish });

console.log(result.text);
for (const [index, prompt] of prompts.entries()) {
  const results = prompt.flatMap((message) => (message.role === 'tool' && Array.isArray(message.content) ? message.content : [])) as Array<{ output?: { value?: unknown } }>;
  const previews = results.filter((part) => typeof part.output?.value === 'string' && part.output.value.startsWith('[stored output')).length;
  console.log(`call ${index + 1}: ${prompt.length} messages, ${previews} outputs shown as previews`);
}
