import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Agent } from '@mastra/core/agent';
import { createTool } from '@mastra/core/tools';
import { z } from 'zod';
import type { TraceSink } from '@strata/context';
import { loadProviderRules, loadSweAgentConversations } from '@strata/testing';
import { nextArgumentsOf } from '@strata/tools';
import { createStrataMastra } from './strata-mastra.js';

const STEPS = 12;
const CAP = 5_000;
const INSTRUCTIONS = 'You audit records.';

/** Our own fixture: record bodies of 40 to 160 lines, so a clone without ../shared still tests the core. */
function recordBody(id: number): string {
  const lines = 40 + ((id * 37) % 120);
  return Array.from({ length: lines }, (_, line) => `record ${id} line ${line + 1}: status=${(id + line) % 7 === 0 ? 'late' : 'ok'} amount=${(id * 131 + line * 17) % 1000}`).join('\n');
}

/** Real recorded tool outputs (SWE-agent trajectories), the longest first; undefined when ../shared is absent. */
function recordedOutputs(): string[] | undefined {
  const conversations = loadSweAgentConversations();
  if (!conversations) return undefined;
  const outputs = conversations.flatMap((conversation) => conversation.messages.flatMap((message) => (message.role === 'tool' && typeof message.content === 'string' && message.content.length > 400 ? [message.content] : [])));
  return outputs.sort((a, b) => b.length - a.length).slice(0, STEPS);
}

/** A call the fake model received: its prompt (LanguageModelV2 messages). */
type Prompt = Array<{ role: string; content: unknown }>;
type Part = { type: string; [key: string]: unknown };

/**
 * A LanguageModelV2 (the spec Mastra 0.24 runs: `specificationVersion: 'v2'`),
 * scripted: each step calls `fetch_record` once, then it answers.
 */
function scriptedModel(steps: number) {
  const prompts: Prompt[] = [];
  const usage = { inputTokens: 10, outputTokens: 1, totalTokens: 11 };
  const reply = (prompt: Prompt): { content: Part[]; finishReason: string } => {
    prompts.push(structuredClone(prompt));
    const step = prompts.length;
    if (step > steps) return { content: [{ type: 'text', text: 'Done.' }], finishReason: 'stop' };
    return { content: [{ type: 'tool-call', toolCallId: `call-${step}`, toolName: 'fetch_record', input: JSON.stringify({ id: step }) }], finishReason: 'tool-calls' };
  };
  return {
    prompts,
    model: {
      specificationVersion: 'v2' as const,
      provider: 'fake',
      modelId: 'scripted',
      supportedUrls: {},
      async doGenerate(options: { prompt: Prompt }) {
        return { ...reply(options.prompt), usage, warnings: [] };
      },
      async doStream(options: { prompt: Prompt }) {
        const { content, finishReason } = reply(options.prompt);
        const parts: Part[] = [{ type: 'stream-start', warnings: [] }, ...content.flatMap((part): Part[] => (part.type === 'text' ? [{ type: 'text-start', id: 't' }, { type: 'text-delta', id: 't', delta: part.text }, { type: 'text-end', id: 't' }] : [part])), { type: 'finish', finishReason, usage }];
        return { stream: new ReadableStream<Part>({ start(controller) { for (const part of parts) controller.enqueue(part); controller.close(); } }) };
      },
    },
  };
}

/** The prompt in OpenAI chat shape, mapped field by field, for the independent oracle. */
function asOpenAIChat(prompt: Prompt): unknown[] {
  return prompt.flatMap((message): unknown[] => {
    const parts = (Array.isArray(message.content) ? message.content : []) as Part[];
    switch (message.role) {
      case 'system':
        return [{ role: 'system', content: message.content }];
      case 'user':
        return [{ role: 'user', content: parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('') }];
      case 'assistant': {
        const calls = parts.flatMap((part) => (part.type === 'tool-call' ? [{ id: part.toolCallId, type: 'function', function: { name: part.toolName, arguments: JSON.stringify(part.input) } }] : []));
        const text = parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
        return [{ role: 'assistant', content: text, ...(calls.length > 0 ? { tool_calls: calls } : {}) }];
      }
      default:
        return parts.flatMap((part) => (part.type === 'tool-result' ? [{ role: 'tool', tool_call_id: part.toolCallId, content: JSON.stringify(part.output) }] : []));
    }
  });
}

/** Every tool result text the prompt carries, by call id. */
function toolTexts(prompt: Prompt): Map<string, string> {
  const texts = new Map<string, string>();
  for (const message of prompt) {
    if (message.role !== 'tool') continue;
    for (const part of message.content as Part[]) {
      const output = part.output as { type?: string; value?: unknown } | undefined;
      if (part.type === 'tool-result' && output?.type === 'text' && typeof output.value === 'string') texts.set(part.toolCallId as string, output.value);
    }
  }
  return texts;
}

for (const source of ['own fixture', 'recorded outputs'] as const) {
  test(`Agent.generate (${source}): a ${STEPS}-step Mastra loop stays provider-valid under the cap, masks, reads back byte-exact and traces every call`, async (t) => {
    const recorded = source === 'recorded outputs' ? recordedOutputs() : undefined;
    if (source === 'recorded outputs' && !recorded) return t.skip('../shared is absent');
    const output = (id: number): string => (recorded ? recorded[(id - 1) % recorded.length]! : recordBody(id));
    const rules = await loadProviderRules();
    const traces: number[] = [];
    const traceSink: TraceSink = { async write(document) { traces.push(document.turn); } };
    const fetchRecord = createTool({ id: 'fetch_record', description: 'Fetches one record by id.', inputSchema: z.object({ id: z.number().int() }), execute: async ({ context }) => output(context.id) });
    const strata = createStrataMastra({ budget: { inputCapTokens: CAP }, traceSink, contextId: 'audit', instructions: INSTRUCTIONS, tools: { fetch_record: fetchRecord } });
    const { model, prompts } = scriptedModel(STEPS);
    const agent = new Agent({ name: 'auditor', instructions: INSTRUCTIONS, model: model as never, tools: { fetch_record: fetchRecord, read_tool_output: strata.readToolOutput } });
    const result = await agent.generate('Audit every record and report the late ones.', { maxSteps: STEPS + 2, prepareStep: strata.prepareStep as never });

    assert.equal(result.text, 'Done.');
    assert.equal(prompts.length, STEPS + 1);
    // One trace per model call, numbered from 1.
    assert.deepEqual(traces, prompts.map((_, index) => index + 1));
    let maskedSeen = 0;
    for (const [index, prompt] of prompts.entries()) {
      if (rules) {
        assert.deepEqual(rules.violations(asOpenAIChat(prompt), 'openai'), [], `call ${index} (openai)`);
        assert.deepEqual(rules.violations(asOpenAIChat(prompt), 'anthropic'), [], `call ${index} (anthropic)`);
      }
      // The agent's instructions reach every call.
      assert.ok(prompt.some((message) => message.role === 'system' && String(message.content).includes(INSTRUCTIONS)), `call ${index}: the instructions`);
      // The window cap: what reached the model stays near the cap (4 characters a token bounds our estimate from above).
      assert.ok(JSON.stringify(prompt).length / 4 < CAP * 1.5, `call ${index}: ${JSON.stringify(prompt).length} characters`);
      for (const [callId, text] of toolTexts(prompt)) {
        const id = Number(callId.slice('call-'.length));
        if (text === output(id)) continue;
        // A masked output names its reference; read_tool_output gives the whole output back byte-exact, page by page.
        const ref = /ref="([^"]+)"/.exec(text)?.[1];
        assert.ok(ref, `call ${index}: ${callId} is masked with a reference: ${text.slice(0, 200)}`);
        let read = '';
        let input: Record<string, unknown> | undefined = { ref, lines: { start: 1 } };
        while (input) {
          const answer = (await strata.readToolOutput.execute!({ context: input } as never, { toolCallId: 'read', messages: [] } as never)) as string;
          read += answer.slice(answer.indexOf('\n') + 1);
          input = nextArgumentsOf(answer) as Record<string, unknown> | undefined;
        }
        assert.equal(read, output(id), `call ${index}: ${callId} read back`);
        maskedSeen += 1;
      }
    }
    assert.ok(maskedSeen > 0, 'the window masked some outputs');
  });
}
