import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Agent, Runner, Usage, setTracingDisabled, tool, type AgentInputItem, type Model, type ModelRequest, type ModelResponse } from '@openai/agents-core';
import type { TraceSink } from '@strata/context';
import { agentItemsAsOpenAIChat, alternating, assertRunKeptApart, cachePricedCost, contextsShown, digitToolOutputIds, loadProviderRules, renumberRefs, turnstile, type RunScript } from '@strata/testing';
import { createMemoryToolOutputStore } from '@strata/store';
import { nextArgumentsOf } from '@strata/tools';
import { importAgentItems } from './agents-history.js';
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
  await strata.settled();

  assert.equal(result.finalOutput, 'Done: records 7 and 14 are late.');
  assert.equal(model.requests.length, STEPS + 1);
  assert.deepEqual(traces, model.requests.map((_, index) => index + 1));
  for (const [index, request] of model.requests.entries()) {
    const items = request.input as AgentInputItem[];
    if (rules) {
      assert.deepEqual(rules.violations(agentItemsAsOpenAIChat(request.systemInstructions, items), 'openai'), [], `request ${index} (openai)`);
      assert.deepEqual(rules.violations(agentItemsAsOpenAIChat(request.systemInstructions, items), 'anthropic'), [], `request ${index} (anthropic)`);
    }
    // The agent's instructions alone: the task stays in the history (the window keeps the first request), so no goal snapshot copies it.
    assert.equal(request.systemInstructions, 'You audit records.');
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

const RUN_STEPS = 8;

/** A run's model: fetches RUN_STEPS records, searches every stored output without a reference, reads a reference shown to it, answers; each call waits its turn. */
class RunModel implements Model {
  readonly requests: ModelRequest[] = [];
  constructor(
    private readonly script: RunScript,
    private readonly gate: { pass(run: string): Promise<void> },
  ) {}
  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    await this.gate.pass(this.script.name);
    this.requests.push(request);
    const step = this.requests.length;
    const usage = new Usage({ requests: 1, inputTokens: 10, outputTokens: 5, totalTokens: 15 });
    const call = (name: string, input: unknown): ModelResponse => ({ usage, output: [{ type: 'function_call', callId: `${this.script.callPrefix}-${step}`, name, arguments: JSON.stringify(input), status: 'completed' }] });
    if (step <= RUN_STEPS) return call('fetch_record', { run: this.script.data, id: step });
    if (step === RUN_STEPS + 1) return call('read_tool_output', { query: 'line 1: status' });
    if (step === RUN_STEPS + 2) return call('read_tool_output', { ref: /ref=\\?"(out_[0-9a-z]+)\\?"/.exec(JSON.stringify(request.input))?.[1] ?? 'missing', lines: { start: 1, end: 3 } });
    return { usage, output: [{ type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: `${this.script.name}: done.` }] }] };
  }
  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error('not streamed in this test');
  }
}

/** Runs the scripts concurrently, one agent each over one adapter instance with the default context ids, model calls interleaved by `order`. */
async function concurrentRuns(scripts: readonly RunScript[], order: readonly string[]) {
  // Ids of digits only: every reference costs the same tokens, in this store and in the run alone's.
  const strata = createStrataOpenAIAgents({ budget: { inputCapTokens: 6_000 }, readToolOutput: { maxChars: 1_000, contextLines: 0 }, outputStore: createMemoryToolOutputStore({ newId: digitToolOutputIds() }) });
  const fetchRecord = tool({
    name: 'fetch_record',
    description: 'Fetches one record of a run by id.',
    parameters: { type: 'object', properties: { run: { type: 'string' }, id: { type: 'integer' } }, required: ['run', 'id'], additionalProperties: false },
    strict: true,
    execute: async (input) => `${(input as { run: string }).run}: ${recordBody((input as { id: number }).id)}`,
  });
  const gate = turnstile(order);
  const models = scripts.map((script) => new RunModel(script, gate));
  const runner = new Runner({ callModelInputFilter: strata.callModelInputFilter });
  await Promise.all(scripts.map((script, index) => runner.run(new Agent({ name: 'auditor', instructions: 'You audit records.', model: models[index]!, tools: [fetchRecord, strata.readToolOutput] }), [{ role: 'user', content: script.task }], { maxTurns: RUN_STEPS + 5 })));
  const requests = models.map((model) => model.requests);
  // The contexts of the references each run was shown (previews, search answers), and what each of them stores.
  const shown = await contextsShown(strata.outputStore, requests.map((runRequests) => runRequests.map((request) => request.input)));
  return { requests, ...shown };
}

/** A run's requests (instructions and items) with reference ids renamed by first appearance, and their cache-priced cost. */
function comparable(requests: readonly ModelRequest[]): { requests: string[]; cost: number } {
  const names = new Map<string, string>();
  const canonicalNames = new Map<string, string>();
  const canonical = (request: ModelRequest) => [{ role: 'system' as const, content: request.systemInstructions ?? '' }, ...importAgentItems(request.input as AgentInputItem[]).map(({ message }) => message)];
  return {
    requests: requests.map((request) => renumberRefs(JSON.stringify([request.systemInstructions, request.input]), names)),
    cost: cachePricedCost(requests.map((request) => JSON.parse(renumberRefs(JSON.stringify(canonical(request)), canonicalNames)))),
  };
}

/** The output of each function call result in a request, by call id. */
function toolTexts(request: ModelRequest): Map<string, string> {
  return new Map((request.input as AgentInputItem[]).flatMap((item) => (item.type === 'function_call_result' ? [[item.callId, typeof item.output === 'string' ? item.output : JSON.stringify(item.output)] as [string, string]] : [])));
}

const RUN_A: RunScript = { name: 'A', task: 'Audit the records of run A and report the late ones.', data: 'A', callPrefix: 'call-a' };
const RUN_B: RunScript = { name: 'B', task: 'Audit the records of run B and report the late ones.', data: 'B', callPrefix: 'call-b' };

// Call ids differ between runs, as the provider's do: the filter is told nothing of the run, and learns it from them.
for (const { label, scripts } of [
  { label: 'two runs', scripts: [RUN_A, RUN_B] },
  { label: 'two runs with identical prompts', scripts: [RUN_A, { ...RUN_A, name: 'B', callPrefix: 'call-b' }] },
]) {
  test(`Runner: ${label} on one instance, calls interleaved, never share a stored output or a search, and each sends what it sends alone`, async () => {
    const rules = await loadProviderRules();
    const together = await concurrentRuns(scripts, alternating(RUN_STEPS + 3));
    for (const [index, script] of scripts.entries()) {
      const alone = await concurrentRuns([script], []);
      const requests = together.requests[index]!;
      assertRunKeptApart(
        {
          script,
          steps: RUN_STEPS,
          chats: requests.map((request) => agentItemsAsOpenAIChat(request.systemInstructions, request.input as AgentInputItem[])),
          together: comparable(requests),
          alone: comparable(alone.requests[0]!),
          answers: toolTexts(requests.at(-1)!),
          readPattern: new RegExp(`${script.data}: record 1 line 1`),
          refContexts: together.refContexts[index]!,
          bodies: together.bodies,
          aloneBodies: [...alone.bodies.values()][0],
        },
        rules,
      );
    }
    assert.notDeepEqual([...together.refContexts[0]!], [...together.refContexts[1]!], 'no context shared');
  });
}
