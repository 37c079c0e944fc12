import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateText, jsonSchema, stepCountIs, tool, wrapLanguageModel, type ModelMessage } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { fromAiSdkMessages, type TraceSink } from '@strata/context';
import { alternating, assertRunKeptApart, cachePricedCost, contextsShown, digitToolOutputIds, loadProviderRules, renumberRefs, turnstile, type RunScript } from '@strata/testing';
import { createMemoryToolOutputStore } from '@strata/store';
import { nextArgumentsOf } from '@strata/tools';
import { createStrataAiSdk } from './strata-ai-sdk.js';

type Prompt = MockLanguageModelV3['doGenerateCalls'][number]['prompt'];

const IMAGE = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3, 4]);
const PDF = new Uint8Array([0x25, 0x50, 0x44, 0x46, 0x2d, 0x31, 0x2e, 0x37]);
const TASK = 'Audit every record and report the ones whose status is "late".';
/** A request setting on a part, which Strata's canonical history does not carry: it must still reach the model. */
const CACHE_CONTROL = { anthropic: { cacheControl: { type: 'ephemeral' } } };

/** A tool body of 2-9 KB: numbered lines, different per record. */
function recordBody(id: number): string {
  const lines = 40 + ((id * 37) % 120);
  return Array.from({ length: lines }, (_, line) => `record ${id} line ${line + 1}: status=${(id + line) % 7 === 0 ? 'late' : 'ok'} amount=${(id * 131 + line * 17) % 1000}`).join('\n');
}

/** A model that calls `fetch_record` once per step, then answers. */
function scriptedModel(steps: number): MockLanguageModelV3 {
  let call = 0;
  return new MockLanguageModelV3({
    doGenerate: async () => {
      call += 1;
      const usage = { inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 5, text: 5, reasoning: 0 } };
      if (call > steps) return { content: [{ type: 'text', text: 'Done: records 7 and 14 are late.' }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] };
      return {
        content: [{ type: 'text', text: `Fetching record ${call}.` }, { type: 'tool-call', toolCallId: `call-${call}`, toolName: 'fetch_record', input: JSON.stringify({ id: call }) }],
        finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
        usage,
        warnings: [],
      };
    },
  });
}

const fetchRecord = tool({
  description: 'Fetches one record by id.',
  inputSchema: jsonSchema<{ id: number }>({ type: 'object', properties: { id: { type: 'integer' } }, required: ['id'], additionalProperties: false }),
  execute: async ({ id }) => recordBody(id),
});

/** The prompt in OpenAI chat shape, mapped field by field, for the independent oracle. */
function asOpenAIChat(prompt: Prompt): unknown[] {
  return prompt.flatMap((message): unknown[] => {
    switch (message.role) {
      case 'system':
        return [{ role: 'system', content: message.content }];
      case 'user': {
        const text = message.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
        const media = message.content.filter((part) => part.type === 'file');
        return [{ role: 'user', content: media.length === 0 ? text : [{ type: 'text', text }, ...media.map(() => ({ type: 'image_url' }))] }];
      }
      case 'assistant': {
        const calls = message.content.flatMap((part) => (part.type === 'tool-call' ? [{ id: part.toolCallId, type: 'function', function: { name: part.toolName, arguments: JSON.stringify(part.input) } }] : []));
        const text = message.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
        return [{ role: 'assistant', content: text, ...(calls.length > 0 ? { tool_calls: calls } : {}) }];
      }
      case 'tool':
        return message.content.flatMap((part) => (part.type === 'tool-result' ? [{ role: 'tool', tool_call_id: part.toolCallId, content: JSON.stringify(part.output) }] : []));
    }
  });
}

function memoryTraceSink(): TraceSink & { documents: Array<{ contextId: string; turn: number; body: unknown }> } {
  const documents: Array<{ contextId: string; turn: number; body: unknown }> = [];
  return { documents, async write(document) { documents.push({ contextId: document.contextId, turn: document.turn, body: document.body }); } };
}

function firstUser(prompt: Prompt): Extract<Prompt[number], { role: 'user' }> {
  return prompt.find((message) => message.role === 'user') as Extract<Prompt[number], { role: 'user' }>;
}

/** Every tool result text the prompt carries, by call id. */
function toolTexts(prompt: Prompt): Map<string, string> {
  const texts = new Map<string, string>();
  for (const message of prompt) {
    if (message.role !== 'tool') continue;
    for (const part of message.content) if (part.type === 'tool-result' && part.output.type === 'text') texts.set(part.toolCallId, part.output.value);
  }
  return texts;
}

const STEPS = 14;
const initialMessages: ModelMessage[] = [
  {
    role: 'user',
    content: [
      { type: 'text', text: TASK, providerOptions: CACHE_CONTROL },
      { type: 'image', image: IMAGE, mediaType: 'image/png' },
      { type: 'file', data: PDF, mediaType: 'application/pdf', filename: 'audit.pdf' },
    ],
  },
];

for (const entry of ['prepareStep', 'middleware'] as const) {
  test(`${entry}: a ${STEPS}-step tool loop at a small window stays provider-valid, masks, reads back and traces every step`, async () => {
    const rules = await loadProviderRules();
    const traceSink = memoryTraceSink();
    const strata = createStrataAiSdk({ budget: { inputCapTokens: 6_000 }, traceSink, contextId: 'audit', tools: { fetch_record: fetchRecord } });
    const mock = scriptedModel(STEPS);
    const model = entry === 'middleware' ? wrapLanguageModel({ model: mock, middleware: strata.middleware }) : mock;
    const result = await generateText({
      model,
      messages: initialMessages,
      tools: { fetch_record: fetchRecord, ...strata.tools },
      stopWhen: stepCountIs(STEPS + 2),
      ...(entry === 'prepareStep' ? { prepareStep: strata.prepareStep, onFinish: strata.onFinish } : {}),
    });
    assert.equal(result.text, 'Done: records 7 and 14 are late.');
    const prompts = mock.doGenerateCalls.map((call) => call.prompt);
    assert.equal(prompts.length, STEPS + 1);

    // One trace per model call, numbered from 1.
    assert.deepEqual(traceSink.documents.map((document) => document.turn), prompts.map((_, index) => index + 1));
    // Each trace holds the provider's count of its own call beside ours (prepareStep: fed back by the next step, the last by onFinish).
    assert.deepEqual(traceSink.documents.map((document) => (document.body as { modelCall?: { usage?: { inputTokens?: unknown } } }).modelCall?.usage?.inputTokens), prompts.map(() => 10));

    for (const [index, prompt] of prompts.entries()) {
      if (rules) {
        assert.deepEqual(rules.violations(asOpenAIChat(prompt), 'openai'), [], `request ${index} (openai)`);
        assert.deepEqual(rules.violations(asOpenAIChat(prompt), 'anthropic'), [], `request ${index} (anthropic)`);
      }
      // The task, its image and its file reach the model unchanged on every step.
      const user = firstUser(prompt);
      assert.deepEqual(user.content[0], { type: 'text', text: TASK, providerOptions: CACHE_CONTROL });
      const files = user.content.filter((part) => part.type === 'file');
      assert.equal(files.length, 2, `request ${index}: image and file`);
      assert.deepEqual(files.map((part) => [part.mediaType, Buffer.from(part.data as Uint8Array).toString('base64')]), [
        ['image/png', Buffer.from(IMAGE).toString('base64')],
        ['application/pdf', Buffer.from(PDF).toString('base64')],
      ]);
    }

    // Compaction was crossed: a later request shows an early result as a preview with its reference.
    const last = toolTexts(prompts.at(-1)!);
    const masked = [...last.entries()].find(([, text]) => text.startsWith('[stored output ref="'));
    assert.ok(masked, 'a tool result was masked by the last step');
    const [callId, preview] = masked;
    const ref = /ref="([^"]+)"/.exec(preview)![1]!;
    const id = Number(callId.slice('call-'.length));
    // Read back byte-exact through the adapter's own tool, part by part.
    let text = '';
    let input: Record<string, unknown> | undefined = { ref, lines: { start: 1 } };
    while (input) {
      const answer = (await strata.tools.read_tool_output.execute!(input, { toolCallId: 'read', messages: [] })) as string;
      text += answer.slice(answer.indexOf('\n') + 1);
      input = nextArgumentsOf(answer) as Record<string, unknown> | undefined;
    }
    assert.equal(text, recordBody(id));
  });
}

const RUN_STEPS = 8;
const runRecord = (run: string, id: number): string => `${run}: ${recordBody(id)}`;
const fetchRunRecord = tool({
  description: 'Fetches one record of a run by id.',
  inputSchema: jsonSchema<{ run: string; id: number }>({ type: 'object', properties: { run: { type: 'string' }, id: { type: 'integer' } }, required: ['run', 'id'], additionalProperties: false }),
  execute: async ({ run, id }) => runRecord(run, id),
});

/**
 * A run's model: fetches RUN_STEPS records, then searches every stored output without a reference
 * (`status=late`), then reads a reference shown in its prompt, then answers. Each call waits its turn.
 */
function runModel(script: RunScript, gate: { pass(run: string): Promise<void> }): MockLanguageModelV3 {
  let step = 0;
  const usage = { inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 5, text: 5, reasoning: 0 } };
  const call = (toolName: string, input: unknown) => ({
    content: [{ type: 'tool-call' as const, toolCallId: `${script.callPrefix}-${step}`, toolName, input: JSON.stringify(input) }],
    finishReason: { unified: 'tool-calls' as const, raw: 'tool_calls' },
    usage,
    warnings: [],
  });
  return new MockLanguageModelV3({
    doGenerate: async ({ prompt }) => {
      await gate.pass(script.name);
      step += 1;
      if (step <= RUN_STEPS) return call('fetch_record', { run: script.data, id: step });
      if (step === RUN_STEPS + 1) return call('read_tool_output', { query: 'line 1: status' });
      const ref = /ref=\\?"(out_[0-9a-z]+)\\?"/.exec(JSON.stringify(prompt))?.[1];
      if (step === RUN_STEPS + 2 && ref) return call('read_tool_output', { ref, lines: { start: 1, end: 3 } });
      return { content: [{ type: 'text', text: `${script.name}: done.` }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] };
    },
  });
}

/** Runs the scripts concurrently on one adapter instance with the default context ids, calls interleaved by `order`. */
async function concurrentRuns(entry: 'prepareStep' | 'middleware', scripts: readonly RunScript[], order: readonly string[]) {
  const traces: Array<{ contextId: string }> = [];
  // Search answers are kept under 1,024 characters, so they are never stored and masked themselves.
  // Ids of digits only: every reference costs the same tokens, in this store and in the run alone's.
  const strata = createStrataAiSdk({ budget: { inputCapTokens: 6_000 }, traceSink: { async write(document) { traces.push({ contextId: document.contextId }); } }, tools: { fetch_record: fetchRunRecord }, readToolOutput: { maxChars: 1_000, contextLines: 0 }, outputStore: createMemoryToolOutputStore({ newId: digitToolOutputIds() }) });
  const gate = turnstile(order);
  const mocks = scripts.map((script) => runModel(script, gate));
  await Promise.all(
    scripts.map((script, index) =>
      generateText({
        model: entry === 'middleware' ? wrapLanguageModel({ model: mocks[index]!, middleware: strata.middleware }) : mocks[index]!,
        messages: [{ role: 'user', content: script.task }],
        tools: { fetch_record: fetchRunRecord, ...strata.tools },
        stopWhen: stepCountIs(RUN_STEPS + 5),
        ...(entry === 'prepareStep' ? { prepareStep: strata.prepareStep, onFinish: strata.onFinish } : {}),
      }),
    ),
  );
  const prompts = mocks.map((mock) => mock.doGenerateCalls.map((call) => call.prompt));
  // The contexts of the references each run was shown (previews, search answers), and what each of them stores.
  const shown = await contextsShown(strata.outputStore, prompts);
  return { prompts, contexts: new Set(traces.map((trace) => trace.contextId)), ...shown };
}

/** A run's prompts with reference ids renamed by first appearance, and their cache-priced cost. */
function comparable(prompts: readonly Prompt[]): { requests: string[]; cost: number } {
  const names = new Map<string, string>();
  const canonicalNames = new Map<string, string>();
  return {
    requests: prompts.map((prompt) => renumberRefs(JSON.stringify(prompt), names)),
    // Priced with the references renamed too: their random letters and digits count differently.
    cost: cachePricedCost(prompts.map((prompt) => JSON.parse(renumberRefs(JSON.stringify(fromAiSdkMessages(prompt)), canonicalNames)))),
  };
}

const RUN_A: RunScript = { name: 'A', task: 'Audit the records of run A and report the late ones.', data: 'A', callPrefix: 'call' };
const RUN_B: RunScript = { name: 'B', task: 'Audit the records of run B and report the late ones.', data: 'B', callPrefix: 'call' };
/** Run B with its own call ids, as providers issue them: the middleware tells runs' tool calls apart by their ids. */
const RUN_B_OWN_IDS: RunScript = { ...RUN_B, callPrefix: 'call-b' };

for (const entry of ['prepareStep', 'middleware'] as const) {
  const cases = [
    { label: 'two runs', scripts: [RUN_A, entry === 'prepareStep' ? RUN_B : RUN_B_OWN_IDS] },
    // The same prompt twice. Under prepareStep even the call ids are the same (the run's steps tell them apart);
    // the middleware knows a run only by its messages, so its runs differ as providers' call ids do.
    { label: 'two runs with identical prompts', scripts: [RUN_A, { ...RUN_A, name: 'B', callPrefix: entry === 'prepareStep' ? 'call' : 'other' }] },
  ];
  for (const { label, scripts } of cases) {
    test(`${entry}: ${label} on one instance, calls interleaved, never share a stored output or a search, and each sends what it sends alone`, async () => {
      const rules = await loadProviderRules();
      const together = await concurrentRuns(entry, scripts, alternating(RUN_STEPS + 3));
      for (const [index, script] of scripts.entries()) {
        const alone = await concurrentRuns(entry, [script], []);
        const prompts = together.prompts[index]!;
        assertRunKeptApart(
          {
            script,
            steps: RUN_STEPS,
            chats: prompts.map((prompt) => asOpenAIChat(prompt)),
            together: comparable(prompts),
            alone: comparable(alone.prompts[0]!),
            answers: toolTexts(prompts.at(-1)!),
            readPattern: new RegExp(`\\n${script.data}: record`),
            refContexts: together.refContexts[index]!,
            bodies: together.bodies,
            aloneBodies: [...alone.bodies.values()][0],
          },
          rules,
        );
        // The reference it read is one of its own records, never another run's.
        const read = toolTexts(prompts.at(-1)!).get(`${script.callPrefix}-${RUN_STEPS + 2}`) ?? '';
        for (const other of scripts) if (other.data !== script.data) assert.doesNotMatch(read, new RegExp(`${other.data}: record`));
      }
      assert.equal(together.contexts.size, scripts.length, 'one context per run');
      assert.notDeepEqual([...together.refContexts[0]!], [...together.refContexts[1]!], 'no context shared');
    });
  }
}
