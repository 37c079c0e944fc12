import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AIMessage, HumanMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { createAgent } from 'langchain';
import { z } from 'zod';
import type { ContextDiagnostic, ContextTraceV5, TraceSink } from '@strata/context';
import { createMemorySessionStore } from '@strata/store';
import { scriptedChatModel } from '@strata/testing';
import { createStrataLangChain } from './strata-langchain.js';

const readLog = tool(async ({ part }: { part: number }) => Array.from({ length: 30 }, (_, line) => `part ${part} line ${line}: ok`).join('\n'), { name: 'read_log', description: 'Reads one part of the log.', schema: z.object({ part: z.number().int() }) });

test("LangChain createAgent: each response's usage_metadata.input_tokens is fed back: the calibration is stored with the session, a count far below ours is reported at its turn, the trace holds both", async () => {
  const documents: ContextTraceV5[] = [];
  const traceSink: TraceSink = { async write(document) { documents.push(document.body as ContextTraceV5); } };
  const diagnostics: ContextDiagnostic[] = [];
  const sessionStore = createMemorySessionStore();
  const strata = createStrataLangChain({ budget: { inputCapTokens: 20_000 }, contextId: 'usage', traceSink, sessionStore, onDiagnostic: (diagnostic) => diagnostics.push(diagnostic) });
  const model = scriptedChatModel();
  // Call 1: the provider counts far more than we do; call 3: far less (the server cut the prompt).
  const reported = [5_000, 12_000, 40];
  reported.forEach((input_tokens, index) => {
    const usage_metadata = { input_tokens, output_tokens: 5, total_tokens: input_tokens + 5 };
    model.respond(index < 2 ? new AIMessage({ content: '', tool_calls: [{ name: 'read_log', args: { part: index + 1 }, id: `call-${index + 1}`, type: 'tool_call' }], usage_metadata }) : new AIMessage({ content: 'done', usage_metadata }));
  });
  const agent = createAgent({ model, tools: [readLog, strata.readToolOutput], middleware: [strata.middleware], systemPrompt: 'You read logs.' });
  const result = await agent.invoke({ messages: [new HumanMessage('Read the whole log.')] });
  assert.equal(result.messages.at(-1)?.text, 'done');
  assert.deepEqual(documents.map((trace) => trace.modelCall?.usage?.inputTokens), reported, 'each trace holds the reported count beside ours');
  const ratio = reported[0]! / documents[0]!.budget!.totalTokens;
  assert.ok(ratio > 2);
  assert.equal(diagnostics.find((diagnostic) => diagnostic.code === 'CONTEXT_USAGE_CALIBRATED')?.subject, 'turn 1');
  assert.ok(documents[1]!.budget!.inputCapTokens <= Math.floor(20_000 / ratio) + 1, 'the second call was assembled for the calibrated cap');
  assert.equal(diagnostics.find((diagnostic) => diagnostic.code === 'CONTEXT_PROVIDER_COUNT_LOW')?.subject, 'turn 3');
  assert.ok(((await sessionStore.load('usage'))?.state?.context?.inputTokenRatio ?? 0) >= ratio - 1e-9, 'the calibration is stored with the session');
});
