import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Agent, Runner, Usage, setTracingDisabled, tool, type AgentInputItem, type Model, type ModelRequest, type ModelResponse } from '@openai/agents-core';
import type { TraceSink } from '@strata/context';
import { loadProviderRules } from '@strata/testing';
import { nextArgumentsOf } from '@strata/tools';
import { createStrataOpenAIAgents } from './strata-openai-agents.js';

setTracingDisabled(true);

const TASK = 'Audit every record and report the ones whose status is "late".';
const IMAGE_URL = `data:image/png;base64,${Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]).toString('base64')}`;
const PDF_URL = `data:application/pdf;base64,${Buffer.from('%PDF-1.7').toString('base64')}`;
const STEPS = 14;

function recordBody(id: number): string {
  const lines = 40 + ((id * 37) % 120);
  return Array.from({ length: lines }, (_, line) => `record ${id} line ${line + 1}: status=${(id + line) % 7 === 0 ? 'late' : 'ok'} amount=${(id * 131 + line * 17) % 1000}`).join('\n');
}

/** A fake `Model`: one `fetch_record` call per step, then an answer; records every request. */
class ScriptedModel implements Model {
  readonly requests: ModelRequest[] = [];
  constructor(private readonly steps: number) {}
  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    this.requests.push(request);
    const step = this.requests.length;
    const usage = new Usage({ requests: 1, inputTokens: 10, outputTokens: 5, totalTokens: 15 });
    if (step > this.steps) return { usage, output: [{ type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Done: records 7 and 14 are late.' }] }] };
    return {
      usage,
      output: [
        { type: 'reasoning', content: [{ type: 'input_text', text: `Record ${step} is next.` }] },
        { type: 'function_call', callId: `call-${step}`, name: 'fetch_record', arguments: JSON.stringify({ id: step }), status: 'completed' },
      ],
    };
  }
  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error('not streamed in this test');
  }
}

/** Agent input items in OpenAI chat shape, for the independent oracle: consecutive assistant items are one message. */
function asOpenAIChat(instructions: string | undefined, items: readonly AgentInputItem[]): unknown[] {
  const out: Array<Record<string, unknown>> = instructions ? [{ role: 'system', content: instructions }] : [];
  for (const item of items) {
    const fields = item as Record<string, unknown>;
    const type = fields.type ?? 'message';
    const last = out.at(-1);
    const assistant = last?.role === 'assistant' && last.open === true ? last : undefined;
    if (type === 'reasoning' || type === 'function_call' || (type === 'message' && fields.role === 'assistant')) {
      const target = assistant ?? { role: 'assistant', content: '', open: true };
      if (!assistant) out.push(target);
      if (type === 'function_call') target.tool_calls = [...((target.tool_calls as unknown[]) ?? []), { id: fields.callId, type: 'function', function: { name: fields.name, arguments: fields.arguments } }];
      if (type === 'message') target.content = `${target.content}${(fields.content as Array<{ text?: string }>).map((part) => part.text ?? '').join('')}`;
      if (type === 'reasoning' && target.content === '') target.content = null;
      continue;
    }
    if (assistant) delete assistant.open;
    if (type === 'function_call_result') out.push({ role: 'tool', tool_call_id: fields.callId, content: typeof fields.output === 'string' ? fields.output : JSON.stringify(fields.output) });
    else if (type === 'message') out.push({ role: fields.role, content: typeof fields.content === 'string' ? fields.content : [{ type: 'text' }] });
    else out.push({ role: `unknown:${String(type)}` });
  }
  for (const message of out) delete message.open;
  return out;
}

test(`Runner: a ${STEPS}-step tool loop at a small window stays provider-valid, masks, reads back and traces every call`, async () => {
  const rules = await loadProviderRules();
  const traces: number[] = [];
  const traceSink: TraceSink = { async write(document) { traces.push(document.turn); } };
  const fetchRecord = tool({
    name: 'fetch_record',
    description: 'Fetches one record by id.',
    parameters: { type: 'object', properties: { id: { type: 'integer' } }, required: ['id'], additionalProperties: false },
    strict: true,
    execute: async (input) => recordBody((input as { id: number }).id),
  });
  const strata = createStrataOpenAIAgents({ budget: { inputCapTokens: 6_000 }, traceSink, contextId: 'audit' });
  const model = new ScriptedModel(STEPS);
  const agent = new Agent({ name: 'auditor', instructions: 'You audit records.', model, tools: [fetchRecord, strata.readToolOutput] });
  const task: AgentInputItem = { role: 'user', content: [{ type: 'input_text', text: TASK }, { type: 'input_image', image: IMAGE_URL }, { type: 'input_file', file: PDF_URL, filename: 'audit.pdf' }] };
  const result = await new Runner({ callModelInputFilter: strata.callModelInputFilter }).run(agent, [task], { maxTurns: STEPS + 5 });

  assert.equal(result.finalOutput, 'Done: records 7 and 14 are late.');
  assert.equal(model.requests.length, STEPS + 1);
  assert.deepEqual(traces, model.requests.map((_, index) => index + 1));
  for (const [index, request] of model.requests.entries()) {
    const items = request.input as AgentInputItem[];
    if (rules) {
      assert.deepEqual(rules.violations(asOpenAIChat(request.systemInstructions, items), 'openai'), [], `request ${index} (openai)`);
      assert.deepEqual(rules.violations(asOpenAIChat(request.systemInstructions, items), 'anthropic'), [], `request ${index} (anthropic)`);
    }
    // The agent's instructions, after Strata's run contract (the goal snapshot: the task, verbatim).
    assert.match(request.systemInstructions ?? '', /^<section id="run_contract\.goal">[\s\S]*<\/section>\n\nYou audit records\.$/);
    // The task, its image and its file reach the model unchanged.
    const first = items.find((item) => (item as { role?: string }).role === 'user') as { content: unknown };
    assert.deepEqual(first.content, (task as { content: unknown }).content, `request ${index}: the task item`);
  }

  const lastItems = model.requests.at(-1)!.input as AgentInputItem[];
  const masked = lastItems.find((item) => item.type === 'function_call_result' && typeof item.output === 'string' && item.output.startsWith('[stored output ref="')) as { callId: string; output: string } | undefined;
  assert.ok(masked, 'a tool output was masked by the last call');
  const ref = /ref="([^"]+)"/.exec(masked.output)![1]!;
  let text = '';
  let input: Record<string, unknown> | undefined = { ref, lines: { start: 1 } };
  while (input) {
    const answer = String(await strata.readToolOutput.invoke(undefined as never, JSON.stringify(input)));
    text += answer.slice(answer.indexOf('\n') + 1);
    input = nextArgumentsOf(answer) as Record<string, unknown> | undefined;
  }
  assert.equal(text, recordBody(Number(masked.callId.slice('call-'.length))));
});
