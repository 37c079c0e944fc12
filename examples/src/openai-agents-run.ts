// Strata inside an OpenAI Agents SDK run: one callModelInputFilter, one extra tool. Runs with no key: the
// model is a small fake `Model` that reads a long log five times. Run: npm run example
import { Agent, Runner, Usage, setTracingDisabled, tool, type Model, type ModelRequest, type ModelResponse } from '@openai/agents-core';
import { createStrataOpenAIAgents } from '@strata/openai-agents';

setTracingDisabled(true);

const readLog = tool({
  name: 'read_log',
  description: 'Reads part of the build log.',
  parameters: { type: 'object', properties: { part: { type: 'integer' } }, required: ['part'], additionalProperties: false },
  strict: true,
  execute: async (input) => Array.from({ length: 200 }, (_, line) => `part ${(input as { part: number }).part} line ${line}: ${line % 50 === 0 ? 'ERROR flaky test' : 'ok'}`).join('\n'),
});

class FakeModel implements Model {
  readonly requests: ModelRequest[] = [];
  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    this.requests.push(request);
    const part = this.requests.length;
    if (part > 5) return { usage: new Usage(), output: [{ type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'The log shows a flaky test in every part.' }] }] };
    return { usage: new Usage(), output: [{ type: 'function_call', callId: `call-${part}`, name: 'read_log', arguments: JSON.stringify({ part }), status: 'completed' }] };
  }
  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error('this example does not stream');
  }
}

// The few lines a user adds: a budget, the filter, and read_tool_output among the tools.
const strata = createStrataOpenAIAgents({ budget: { inputCapTokens: 8_000 } });
const model = new FakeModel();
const agent = new Agent({ name: 'log reader', instructions: 'You read build logs.', model, tools: [readLog, strata.readToolOutput] });
const result = await new Runner({ callModelInputFilter: strata.callModelInputFilter }).run(agent, 'Read the five parts of the build log and tell me what failed.');

console.log(result.finalOutput);
for (const [index, request] of model.requests.entries()) {
  const items = Array.isArray(request.input) ? request.input : [];
  const previews = items.filter((item) => item.type === 'function_call_result' && typeof item.output === 'string' && item.output.startsWith('[stored output')).length;
  console.log(`call ${index + 1}: ${items.length} items, ${previews} outputs shown as previews`);
}
