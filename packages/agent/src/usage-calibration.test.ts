import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConservativeTokenEstimator, resolveContextBudget, resolveContextConfiguration, type AssistantMessage, type CanonicalHistory, type ContextDiagnostic, type ToolSchema } from '@strata/context';
import type { ModelClient, ModelEvent } from '@strata/model';
import { createMemoryStores } from '@strata/store';
import { ToolRegistry } from '@strata/tools';
import { createAgentRun } from './create-agent-run.js';

const estimator = new ConservativeTokenEstimator({ family: 'unknown' });
const WINDOW = 4_000;

/** What the conservative estimator makes of a request: the count the assembler decided with. */
function ourCount(messages: CanonicalHistory, tools: readonly ToolSchema[]): number {
  return messages.reduce((total, message) => total + estimator.countMessage(message), 0) + tools.reduce((total, tool) => total + estimator.countTool(tool), 0);
}

/**
 * A provider that reads `steps` parts of a log, one per call, and reports
 * `report(ourCount)` input tokens for each request: a tokenizer that counts
 * more than our estimate (as Claude's may), or a server that drops part of
 * the prompt.
 */
function provider(options: { readonly steps: number; readonly report: (counted: number, call: number) => number }): { client: ModelClient; reported: number[] } {
  const reported: number[] = [];
  const client: ModelClient = {
    provider: 'scripted',
    modelId: 'counting',
    async *stream(request): AsyncIterable<ModelEvent> {
      const inputTokens = options.report(ourCount(request.messages, request.tools ?? []), reported.length + 1);
      reported.push(inputTokens);
      const read = request.messages.filter((message) => message.role === 'tool').length;
      const parts = Math.max(0, ...request.messages.flatMap((message) => (message.role === 'assistant' ? message.toolCalls ?? [] : []).map((call) => Number(call.id.slice(5)))));
      const message: AssistantMessage = parts < options.steps ? { role: 'assistant', content: '', toolCalls: [{ id: `part-${parts + 1}`, name: 'read_log', input: { part: parts + 1, read } }] } : { role: 'assistant', content: 'done' };
      yield { type: 'finish', reason: message.toolCalls ? 'tool-calls' : 'stop', message, usage: { inputTokens, outputTokens: 5 }, warnings: [] };
    },
  };
  return { client, reported };
}

async function run(report: (counted: number, call: number) => number, contextId: string) {
  const tools = new ToolRegistry();
  tools.register({
    name: 'read_log',
    description: 'Reads one part of the log.',
    parameters: { type: 'object', properties: { part: { type: 'integer' } }, required: ['part'] },
    execute: (input) => ({ content: `part ${(input as { part: number }).part}: ${'request handled in 12 ms; '.repeat(60)}` }),
  });
  const { client, reported } = provider({ steps: 16, report });
  const stores = createMemoryStores();
  const configuration = resolveContextConfiguration({}, { modelContextTokens: WINDOW + 1_000 });
  const diagnostics: ContextDiagnostic[] = [];
  const result = await createAgentRun(
    { id: 'reader' },
    { model: client, tools, outputStore: stores.toolOutputs, sessionStore: stores.sessions, configuration },
    { contextId, prompt: 'Read the whole log.', onEvent: (event) => void (event.type === 'diagnostic' && diagnostics.push(event.diagnostic)) },
  ).execute();
  return { result, reported, diagnostics, cap: resolveContextBudget(configuration).inputCapTokens, stored: await stores.sessions.load(contextId) };
}

test('usage feedback: a provider that counts 1.3x our estimate gets every turn after the first within its window by its own count', async () => {
  const { result, reported, diagnostics, cap, stored } = await run((counted) => Math.ceil(counted * 1.3), 'counts-more');
  assert.equal(result.stopReason, 'completed', String(result.error ?? ''));
  assert.ok(reported[0]! > 0);
  assert.ok(Math.max(...reported) > cap * 0.8, 'the run must come near the window for the calibration to matter');
  reported.slice(1).forEach((tokens, index) => assert.ok(tokens <= cap, `turn ${index + 2}: the provider counted ${tokens} of a ${cap}-token window`));
  assert.ok(diagnostics.some((diagnostic) => diagnostic.code === 'CONTEXT_USAGE_CALIBRATED'));
  // The calibration is context state: stored with the session, so another process assembles for it too.
  assert.ok((stored?.state?.context?.inputTokenRatio ?? 0) >= 1.29);
});

test('usage feedback: without calibration a provider that counts 1.3x our estimate would see turns over its window (the run above needs it)', async () => {
  // The same run, the provider's count kept to ours: our own budget alone lets the provider's count pass the cap.
  const { reported, cap } = await run((counted) => counted, 'counts-same');
  assert.ok(reported.some((tokens) => tokens * 1.3 > cap), 'some turn would be over the window at 1.3x');
});

test('usage feedback: a server that counts far fewer tokens than were sent (it cut the prompt) is reported on the first turn it happens', async () => {
  const { diagnostics } = await run((counted, call) => (call >= 5 ? Math.floor(counted * 0.3) : counted), 'truncating');
  const low = diagnostics.filter((diagnostic) => diagnostic.code === 'CONTEXT_PROVIDER_COUNT_LOW');
  assert.ok(low.length > 0);
  assert.equal(low[0]!.subject, 'turn 5');
  assert.match(low[0]!.message, /may have truncated the prompt/);
});
