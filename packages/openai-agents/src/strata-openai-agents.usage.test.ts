import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Agent, Runner, Usage, setTracingDisabled, tool, type Model, type ModelRequest, type ModelResponse } from '@openai/agents-core';
import { PENDING_USAGE_CALLS, type ContextDiagnostic, type ContextTraceV5, type TraceSink } from '@strata/context';
import { createMemorySessionStore } from '@strata/store';
import { createStrataOpenAIAgents } from './strata-openai-agents.js';

setTracingDisabled(true);

/** Two read_log calls, then an answer; each response's usage reports `reported[n]` input tokens. */
class CountingModel implements Model {
  readonly requests: ModelRequest[] = [];
  constructor(private readonly reported: readonly number[]) {}
  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    this.requests.push(request);
    const step = this.requests.length;
    const inputTokens = this.reported[step - 1]!;
    const usage = new Usage({ requests: 1, inputTokens, outputTokens: 5, totalTokens: inputTokens + 5 });
    if (step > 2) return { usage, output: [{ type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'done' }] }] };
    return { usage, output: [{ type: 'function_call', callId: `call-${step}`, name: 'read_log', arguments: JSON.stringify({ part: step }), status: 'completed' }] };
  }
  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error('not streamed in this test');
  }
}

test("OpenAI Agents: the run's per-request usage (requestUsageEntries) is fed back at its next model call, before it assembles, and stored with the session", async () => {
  const documents: ContextTraceV5[] = [];
  const traceSink: TraceSink = { async write(document) { documents.push(document.body as ContextTraceV5); } };
  const diagnostics: ContextDiagnostic[] = [];
  const sessionStore = createMemorySessionStore();
  const strata = createStrataOpenAIAgents({ budget: { inputCapTokens: 20_000 }, contextId: 'agents-usage', traceSink, sessionStore, onDiagnostic: (diagnostic) => diagnostics.push(diagnostic) });
  const readLog = tool({
    name: 'read_log',
    description: 'Reads one part of the log.',
    parameters: { type: 'object', properties: { part: { type: 'integer' } }, required: ['part'], additionalProperties: false },
    strict: true,
    execute: async (input) => Array.from({ length: 30 }, (_, line) => `part ${(input as { part: number }).part} line ${line}: ok`).join('\n'),
  });
  // Call 1: the provider counts far more than we do; call 2: far less (the server cut the prompt).
  const model = new CountingModel([5_000, 30, 30]);
  const agent = new Agent({ name: 'reader', instructions: 'You read logs.', model, tools: [readLog, strata.readToolOutput] });
  const result = await new Runner({ callModelInputFilter: strata.callModelInputFilter }).run(agent, 'Read the whole log.');
  assert.equal(result.finalOutput, 'done');
  const ratio = 5_000 / documents[0]!.budget!.totalTokens;
  assert.equal(diagnostics.find((diagnostic) => diagnostic.code === 'CONTEXT_USAGE_CALIBRATED')?.subject, 'turn 1');
  assert.ok(documents[1]!.budget!.inputCapTokens <= Math.floor(20_000 / ratio) + 1, 'the second call was assembled for the calibrated cap');
  assert.equal(diagnostics.find((diagnostic) => diagnostic.code === 'CONTEXT_PROVIDER_COUNT_LOW')?.subject, 'turn 2', "the second call's low count is reported with the third");
  assert.ok(((await sessionStore.load('agents-usage'))?.state?.context?.inputTokenRatio ?? 0) >= ratio - 1e-9);
});

/** A model that answers at once with `inputTokens`, or fails when told to. */
class OneCallModel implements Model {
  constructor(private readonly inputTokens: number, private readonly fails = false) {}
  async getResponse(): Promise<ModelResponse> {
    if (this.fails) throw new Error('the provider is down');
    return { usage: new Usage({ requests: 1, inputTokens: this.inputTokens, outputTokens: 1, totalTokens: this.inputTokens + 1 }), output: [{ type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'ok' }] }] };
  }
  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error('not streamed in this test');
  }
}

test("OpenAI Agents: a one-call run's usage reaches its trace at agent_end; a failed run's trace is written without usage after PENDING_USAGE_CALLS later model calls", async () => {
  const documents: ContextTraceV5[] = [];
  const strata = createStrataOpenAIAgents({ budget: { inputCapTokens: 4_000 }, traceSink: { async write(document) { documents.push(document.body as ContextTraceV5); } } });
  const runner = new Runner({ callModelInputFilter: strata.callModelInputFilter });
  await runner.run(new Agent({ name: 'one', instructions: 'Answer.', model: new OneCallModel(123) }), 'Answer once.');
  await strata.settled();
  assert.deepEqual(documents.map((trace) => trace.modelCall?.usage?.inputTokens), [123]);
  await assert.rejects(runner.run(new Agent({ name: 'down', instructions: 'Answer.', model: new OneCallModel(0, true) }), 'Never answered.'), /the provider is down/);
  await strata.settled();
  assert.equal(documents.length, 1, 'the failed call waits for a report');
  for (let run = 0; run < PENDING_USAGE_CALLS; run += 1) await runner.run(new Agent({ name: 'more', instructions: 'Answer.', model: new OneCallModel(9) }), `Run ${run}.`);
  await strata.settled();
  assert.equal(documents.length, PENDING_USAGE_CALLS + 2);
  assert.equal(documents.find((trace) => trace.modelCall?.usage === null)?.turn, 1, "the failed run's trace, without usage");
});

/** Two read_log calls, then an answer; request n reports `base + n` input tokens; each response waits a turn of the event loop. */
class TaggedModel implements Model {
  private step = 0;
  constructor(private readonly tag: string, private readonly base: number) {}
  async getResponse(): Promise<ModelResponse> {
    this.step += 1;
    await new Promise((resolve) => setImmediate(resolve));
    const inputTokens = this.base + this.step;
    const usage = new Usage({ requests: 1, inputTokens, outputTokens: 1, totalTokens: inputTokens + 1 });
    if (this.step > 2) return { usage, output: [{ type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: `${this.tag} done` }] }] };
    return { usage, output: [{ type: 'function_call', callId: `${this.tag}-call-${this.step}`, name: 'read_log', arguments: JSON.stringify({ part: this.step }), status: 'completed' }] };
  }
  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error('not streamed in this test');
  }
}

test('OpenAI Agents: runs sharing one context value at once never credit a call with the other run\'s usage', async () => {
  const documents: ContextTraceV5[] = [];
  const strata = createStrataOpenAIAgents({ budget: { inputCapTokens: 20_000 }, traceSink: { async write(document) { documents.push(document.body as ContextTraceV5); } } });
  const readLog = tool({
    name: 'read_log',
    description: 'Reads one part of the log.',
    parameters: { type: 'object', properties: { part: { type: 'integer' } }, required: ['part'], additionalProperties: false },
    strict: true,
    execute: async (input) => `part ${(input as { part: number }).part}: ok`,
  });
  const runner = new Runner({ callModelInputFilter: strata.callModelInputFilter });
  const shared = { user: 'one object for both runs' };
  const agent = (tag: string, base: number) => new Agent({ name: tag, instructions: `You read logs for ${tag}.`, model: new TaggedModel(tag, base), tools: [readLog, strata.readToolOutput] });
  const [first, second] = await Promise.all([
    runner.run(agent('alpha', 1_000), 'Read the alpha log.', { context: shared }),
    runner.run(agent('beta', 5_000), 'Read the beta log.', { context: shared }),
  ]);
  await strata.settled();
  assert.equal(first.finalOutput, 'alpha done');
  assert.equal(second.finalOutput, 'beta done');
  assert.equal(documents.length, 6);
  const contexts = [...new Set(documents.map((trace) => trace.contextId))];
  assert.equal(contexts.length, 2, 'one context per run');
  let credited = 0;
  for (const trace of documents) {
    const reported = trace.modelCall?.usage?.inputTokens;
    if (reported === undefined || reported === null) continue;
    credited += 1;
    // The run's own request: alpha's traces report 1,000 + their turn, beta's 5,000 + theirs.
    const base = reported < 5_000 ? 1_000 : 5_000;
    assert.equal(reported, base + trace.turn, `turn ${trace.turn} of ${trace.contextId} credited with ${reported}`);
    const sameRun = documents.filter((other) => other.contextId === trace.contextId && other.modelCall?.usage?.inputTokens !== undefined && other.modelCall?.usage?.inputTokens !== null);
    assert.ok(sameRun.every((other) => (other.modelCall!.usage!.inputTokens! < 5_000) === (reported < 5_000)), `a context holds one run's usage only (${trace.contextId})`);
  }
  assert.ok(credited >= 4, `the calls each run's own tool calls name are credited (${credited} of 6)`);
});
