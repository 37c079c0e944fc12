// Strata inside an AI SDK loop: your generateText, your tools, Strata's window. Runs with no key: the
// model is the AI SDK's own mock, which reads a long log five times. Run: npm run example
import { generateText, jsonSchema, stepCountIs, tool } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { createStrataAiSdk } from '@strata/ai-sdk';

const readLog = tool({
  description: 'Reads part of the build log.',
  inputSchema: jsonSchema<{ part: number }>({ type: 'object', properties: { part: { type: 'integer' } }, required: ['part'] }),
  execute: async ({ part }) => Array.from({ length: 200 }, (_, line) => `part ${part} line ${line}: ${line % 50 === 0 ? 'ERROR flaky test' : 'ok'}`).join('\n'),
});

let step = 0;
const usage = { inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 0, text: 0, reasoning: 0 } };
const model = new MockLanguageModelV3({
  doGenerate: async () => {
    step += 1;
    if (step > 5) return { content: [{ type: 'text', text: 'The log shows a flaky test in every part.' }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] };
    return { content: [{ type: 'tool-call', toolCallId: `call-${step}`, toolName: 'read_log', input: JSON.stringify({ part: step }) }], finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage, warnings: [] };
  },
});

// The few lines a user adds: a budget, the adapter's prepareStep and onFinish, and read_tool_output among the tools.
const traces: number[] = [];
const strata = createStrataAiSdk({ budget: { inputCapTokens: 8_000 }, tools: { read_log: readLog }, traceSink: { write: async (trace) => void traces.push(trace.turn) } });
const result = await generateText({
  model,
  tools: { read_log: readLog, ...strata.tools },
  prepareStep: strata.prepareStep,
  onFinish: strata.onFinish,
  stopWhen: stepCountIs(10),
  prompt: 'Read the five parts of the build log and tell me what failed.',
});

console.log(result.text);
for (const [index, call] of model.doGenerateCalls.entries()) {
  const previews = call.prompt.filter((message) => message.role === 'tool' && message.content.some((part) => part.type === 'tool-result' && part.output.type === 'text' && part.output.value.startsWith('[stored output'))).length;
  console.log(`step ${index + 1}: ${call.prompt.length} messages, ${previews} tool results shown as previews`);
}
console.log(`traces written for turns ${traces.join(', ')}`);
