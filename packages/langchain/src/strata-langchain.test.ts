import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AIMessage, HumanMessage, type BaseMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { createAgent, createMiddleware } from 'langchain';
import { z } from 'zod';
import type { TraceSink } from '@strata/context';
import { alternating, assertRunKeptApart, cachePricedCost, contextsShown, digitToolOutputIds, langChainAsOpenAIChat as asOpenAIChat, loadProviderRules, renumberRefs, scriptedChatModel, turnstile, type RunScript, type ScriptedChatModel } from '@strata/testing';
import { createMemoryToolOutputStore } from '@strata/store';
import { nextArgumentsOf } from '@strata/tools';
import { importLangChainMessages } from './langchain-history.js';
import { createStrataLangChain } from './strata-langchain.js';

const TASK = 'Audit every record and report the ones whose status is "late".';
const IMAGE = { type: 'image', mimeType: 'image/png', data: Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]).toString('base64') };
const PDF = { type: 'file', mimeType: 'application/pdf', data: Buffer.from('%PDF-1.7').toString('base64'), metadata: { filename: 'audit.pdf' } };
const STEPS = 14;

function recordBody(id: number): string {
  const lines = 40 + ((id * 37) % 120);
  return Array.from({ length: lines }, (_, line) => `record ${id} line ${line + 1}: status=${(id + line) % 7 === 0 ? 'late' : 'ok'} amount=${(id * 131 + line * 17) % 1000}`).join('\n');
}

const fetchRecord = tool(async ({ id }: { id: number }) => recordBody(id), { name: 'fetch_record', description: 'Fetches one record by id.', schema: z.object({ id: z.number().int() }) });


test(`createAgent: a ${STEPS}-step tool loop at a small window stays provider-valid, masks, reads back and traces every call`, async () => {
  const rules = await loadProviderRules();
  const traces: number[] = [];
  const traceSink: TraceSink = { async write(document) { traces.push(document.turn); } };
  const strata = createStrataLangChain({ budget: { inputCapTokens: 6_000 }, traceSink, contextId: 'audit' });
  const model = scriptedChatModel();
  // Each step calls the tool once (`respondWithTools` would echo the whole input as content).
  for (let step = 1; step <= STEPS; step += 1) model.respond(new AIMessage({ content: `Fetching record ${step}.`, tool_calls: [{ name: 'fetch_record', args: { id: step }, id: `call-${step}`, type: 'tool_call' }] }));
  model.respond(new AIMessage('Done: records 7 and 14 are late.'));
  const agent = createAgent({ model, tools: [fetchRecord, strata.readToolOutput], middleware: [strata.middleware], systemPrompt: 'You audit records.' });
  const task = new HumanMessage({ content: [{ type: 'text', text: TASK }, IMAGE, PDF] });
  const result = await agent.invoke({ messages: [task] }, { recursionLimit: 100 });

  assert.equal(result.messages.at(-1)?.text, 'Done: records 7 and 14 are late.');
  // The agent's state keeps every message whole: only model calls see the window.
  assert.equal(result.messages.filter((message) => message.type === 'tool').length, STEPS);
  const calls = model.calls.map((call) => call.messages as BaseMessage[]);
  assert.equal(calls.length, STEPS + 1);
  assert.deepEqual(traces, calls.map((_, index) => index + 1));

  for (const [index, messages] of calls.entries()) {
    if (rules) {
      assert.deepEqual(rules.violations(asOpenAIChat(messages), 'openai'), [], `call ${index} (openai)`);
      assert.deepEqual(rules.violations(asOpenAIChat(messages), 'anthropic'), [], `call ${index} (anthropic)`);
    }
    // One system message, the agent's own: the task stays in the history (the window keeps the first request), so no goal snapshot copies it.
    assert.equal(messages[0]?.type, 'system', `call ${index}: the system prompt`);
    assert.equal(messages[0]!.text, 'You audit records.');
    // The task message, with its image and file, reaches the model as the agent's own object.
    assert.ok(messages.includes(result.messages[0]!), `call ${index}: the task message`);
    assert.deepEqual(result.messages[0]!.content, [{ type: 'text', text: TASK }, IMAGE, PDF]);
  }

  const lastCall = calls.at(-1)!;
  const masked = lastCall.find((message) => message.type === 'tool' && typeof message.content === 'string' && message.content.startsWith('[stored output ref="'));
  assert.ok(masked, 'a tool result was masked by the last call');
  const ref = /ref="([^"]+)"/.exec(masked.content as string)![1]!;
  const id = Number((masked as unknown as { tool_call_id: string }).tool_call_id.slice('call-'.length));
  let text = '';
  let input: Record<string, unknown> | undefined = { ref, lines: { start: 1 } };
  while (input) {
    const answer = (await strata.readToolOutput.invoke(input)) as string;
    text += answer.slice(answer.indexOf('\n') + 1);
    input = nextArgumentsOf(answer) as Record<string, unknown> | undefined;
  }
  assert.equal(text, recordBody(id));
});

test("each thread is its own context: without a contextId, the run's thread_id names it", async () => {
  const contexts: string[] = [];
  const traceSink: TraceSink = { async write(document) { contexts.push(document.contextId); } };
  const strata = createStrataLangChain({ budget: { inputCapTokens: 6_000 }, traceSink });
  const model = scriptedChatModel();
  for (const thread of ['t-1', 't-2']) {
    model.respond(new AIMessage({ content: '', tool_calls: [{ name: 'fetch_record', args: { id: 1 }, id: `${thread}-call`, type: 'tool_call' }] }));
    model.respond(new AIMessage('Done.'));
  }
  const agent = createAgent({ model, tools: [fetchRecord, strata.readToolOutput], middleware: [strata.middleware] });
  for (const thread of ['t-1', 't-2']) await agent.invoke({ messages: [new HumanMessage(TASK)] }, { configurable: { thread_id: thread } });
  assert.deepEqual(contexts, ['t-1', 't-1', 't-2', 't-2']);
});

const RUN_STEPS = 8;
const fetchRunRecord = tool(async ({ run, id }: { run: string; id: number }) => `${run}: ${recordBody(id)}`, {
  name: 'fetch_record',
  description: 'Fetches one record of a run by id.',
  schema: z.object({ run: z.string(), id: z.number().int() }),
});

/** A run's model: fetches RUN_STEPS records, searches every stored output without a reference, reads a reference shown to it, answers. */
function runModel(script: RunScript): ScriptedChatModel {
  const model = scriptedChatModel();
  const call = (step: number, name: string, args: Record<string, unknown>) => new AIMessage({ content: '', tool_calls: [{ name, args, id: `${script.callPrefix}-${step}`, type: 'tool_call' }] });
  for (let step = 1; step <= RUN_STEPS; step += 1) model.respond(call(step, 'fetch_record', { run: script.data, id: step }));
  model.respond(call(RUN_STEPS + 1, 'read_tool_output', { query: 'line 1: status' }));
  model.respond((messages) => call(RUN_STEPS + 2, 'read_tool_output', { ref: /ref="(out_[0-9a-z]+)"/.exec(messages.map((message) => message.text).join('\n'))?.[1] ?? 'missing', lines: { start: 1, end: 3 } }));
  model.respond(new AIMessage(`${script.name}: done.`));
  return model;
}

/** Runs the scripts concurrently, one agent each over one adapter instance with the default context ids, model calls interleaved by `order`. */
async function concurrentRuns(scripts: readonly RunScript[], order: readonly string[]) {
  // Ids of digits only: every reference costs the same tokens, in this store and in the run alone's.
  const strata = createStrataLangChain({ budget: { inputCapTokens: 6_000 }, readToolOutput: { maxChars: 1_000, contextLines: 0 }, outputStore: createMemoryToolOutputStore({ newId: digitToolOutputIds() }) });
  const gate = turnstile(order);
  const models = scripts.map(runModel);
  await Promise.all(
    scripts.map((script, index) => {
      // Inside Strata's middleware: each model call waits its turn.
      const turn = createMiddleware({ name: `Turnstile${script.name}`, wrapModelCall: async (request, handler) => (await gate.pass(script.name), handler(request)) });
      const agent = createAgent({ model: models[index]!, tools: [fetchRunRecord, strata.readToolOutput], middleware: [strata.middleware, turn], systemPrompt: 'You audit records.' });
      return agent.invoke({ messages: [new HumanMessage(script.task)] }, { recursionLimit: 100 });
    }),
  );
  const requests = models.map((model) => model.calls.map((call) => call.messages as BaseMessage[]));
  // The contexts of the references each run was shown (previews, search answers), and what each of them stores.
  const shown = await contextsShown(strata.outputStore, requests.map((runRequests) => runRequests.map((messages) => messages.map((message) => message.content))));
  return { requests, ...shown };
}

/** A run's requests in the oracle's chat shape with reference ids renamed by first appearance, and their cache-priced cost. */
function comparable(requests: readonly BaseMessage[][]): { requests: string[]; cost: number } {
  const names = new Map<string, string>();
  const canonicalNames = new Map<string, string>();
  return {
    requests: requests.map((messages) => renumberRefs(JSON.stringify(asOpenAIChat(messages)), names)),
    cost: cachePricedCost(requests.map((messages) => JSON.parse(renumberRefs(JSON.stringify(importLangChainMessages(messages).map(({ message }) => message)), canonicalNames)))),
  };
}

/** The text of each tool result in a request, by call id. */
function toolTexts(messages: readonly BaseMessage[]): Map<string, string> {
  return new Map(messages.flatMap((message) => (message.type === 'tool' ? [[(message as unknown as { tool_call_id: string }).tool_call_id, message.text] as [string, string]] : [])));
}

const RUN_A: RunScript = { name: 'A', task: 'Audit the records of run A and report the late ones.', data: 'A', callPrefix: 'call' };
const RUN_B: RunScript = { name: 'B', task: 'Audit the records of run B and report the late ones.', data: 'B', callPrefix: 'call' };

for (const { label, scripts } of [
  { label: 'two runs', scripts: [RUN_A, RUN_B] },
  // The same prompt twice; the runs differ, as providers' call ids do, from their first tool call on.
  { label: 'two runs with identical prompts', scripts: [RUN_A, { ...RUN_A, name: 'B', callPrefix: 'other' }] },
]) {
  test(`createAgent: ${label} on one instance without a thread_id, calls interleaved, never share a stored output or a search, and each sends what it sends alone`, async () => {
    const rules = await loadProviderRules();
    const together = await concurrentRuns(scripts, alternating(RUN_STEPS + 3));
    for (const [index, script] of scripts.entries()) {
      const alone = await concurrentRuns([script], []);
      const requests = together.requests[index]!;
      assertRunKeptApart(
        {
          script,
          steps: RUN_STEPS,
          chats: requests.map((messages) => asOpenAIChat(messages)),
          together: comparable(requests),
          alone: comparable(alone.requests[0]!),
          answers: toolTexts(requests.at(-1)!),
          readPattern: new RegExp(`\\n${script.data}: record`),
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
