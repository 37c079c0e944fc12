import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AIMessage, HumanMessage, type BaseMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { tool } from '@langchain/core/tools';
import { createAgent } from 'langchain';
import { z } from 'zod';
import type { TraceSink } from '@strata/context';
import { langChainAsOpenAIChat as asOpenAIChat, loadProviderRules } from '@strata/testing';
import { nextArgumentsOf } from '@strata/tools';
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
  const model = fakeModel();
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
    // One system message: Strata's run contract (the goal snapshot: the task, verbatim), then the agent's own system prompt.
    assert.equal(messages[0]?.type, 'system', `call ${index}: the system prompt`);
    assert.match(messages[0]!.text, /^<section id="run_contract\.goal">[\s\S]*<\/section>\n\nYou audit records\.$/);
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
  const model = fakeModel();
  for (const thread of ['t-1', 't-2']) {
    model.respond(new AIMessage({ content: '', tool_calls: [{ name: 'fetch_record', args: { id: 1 }, id: `${thread}-call`, type: 'tool_call' }] }));
    model.respond(new AIMessage('Done.'));
  }
  const agent = createAgent({ model, tools: [fetchRecord, strata.readToolOutput], middleware: [strata.middleware] });
  for (const thread of ['t-1', 't-2']) await agent.invoke({ messages: [new HumanMessage(TASK)] }, { configurable: { thread_id: thread } });
  assert.deepEqual(contexts, ['t-1', 't-1', 't-2', 't-2']);
});
