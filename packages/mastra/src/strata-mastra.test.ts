import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Agent } from '@mastra/core/agent';
import { MastraMemory } from '@mastra/core/memory';
import { InMemoryStore } from '@mastra/core/storage';
import { Memory } from '@mastra/memory';
import { createTool } from '@mastra/core/tools';
import { z } from 'zod';
import { ConfigurationError, StrataError, type ContextDiagnostic, type ContextTraceV5, type TraceSink } from '@strata/context';
import { createMemorySessionStore } from '@strata/store';
import { contextsShown, loadProviderRules, loadSweAgentConversations } from '@strata/testing';
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

/** What the scripted model does at one step: call a tool, or answer. */
type Move = { readonly call: string; readonly input: Record<string, unknown> } | { readonly text: string };

/**
 * A LanguageModelV2 (the spec Mastra 0.24 runs: `specificationVersion: 'v2'`;
 * ai@6's MockLanguageModelV3 is refused), scripted step by step, reporting
 * `inputTokens` of each call's usage.
 */
function scriptedModel(script: (step: number, prompt: Prompt) => Move, inputTokens: (prompt: Prompt) => number = () => 10) {
  const prompts: Prompt[] = [];
  const reply = (prompt: Prompt): { content: Part[]; finishReason: string; usage: { inputTokens: number; outputTokens: number; totalTokens: number } } => {
    prompts.push(structuredClone(prompt));
    const step = prompts.length;
    const move = script(step, prompt);
    const usage = { inputTokens: inputTokens(prompt), outputTokens: 1, totalTokens: inputTokens(prompt) + 1 };
    if ('text' in move) return { content: [{ type: 'text', text: move.text }], finishReason: 'stop', usage };
    return { content: [{ type: 'tool-call', toolCallId: `call-${step}`, toolName: move.call, input: JSON.stringify(move.input) }], finishReason: 'tool-calls', usage };
  };
  return {
    prompts,
    model: {
      specificationVersion: 'v2' as const,
      provider: 'fake',
      modelId: 'scripted',
      supportedUrls: {},
      async doGenerate(options: { prompt: Prompt }) {
        return { ...reply(options.prompt), warnings: [] };
      },
      async doStream(options: { prompt: Prompt }) {
        const { content, finishReason, usage } = reply(options.prompt);
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

/**
 * A stored output read back whole through the agent's own `read_tool_output`, page by page, called as Mastra
 * calls a tool: with the call's input messages (the run's request `task`, which names its context when no id is given).
 */
async function readWhole(strata: ReturnType<typeof createStrataMastra>, ref: string, task: string): Promise<string> {
  let read = '';
  let input: Record<string, unknown> | undefined = { ref, lines: { start: 1 } };
  while (input) {
    const answer = (await strata.readToolOutput.execute!({ context: input } as never, { toolCallId: 'read', messages: [{ role: 'user', content: [{ type: 'text', text: task }] }] } as never)) as string;
    read += answer.slice(answer.indexOf('\n') + 1);
    input = nextArgumentsOf(answer) as Record<string, unknown> | undefined;
  }
  return read;
}

for (const [method, source] of [['generate', 'own fixture'], ['generate', 'recorded outputs'], ['stream', 'own fixture']] as const) {
  test(`Agent.${method} (${source}): a ${STEPS}-step Mastra loop stays provider-valid under the cap, masks, reads back byte-exact and traces every call`, async (t) => {
    const recorded = source === 'recorded outputs' ? recordedOutputs() : undefined;
    if (source === 'recorded outputs' && !recorded) return t.skip('../shared is absent');
    const output = (id: number): string => (recorded ? recorded[(id - 1) % recorded.length]! : recordBody(id));
    const rules = await loadProviderRules();
    const traces: number[] = [];
    const budgets: number[] = [];
    const traceSink: TraceSink = { async write(document) { traces.push(document.turn); budgets.push((document.body as { budget?: { totalTokens?: number } }).budget?.totalTokens ?? Infinity); } };
    const fetchRecord = createTool({ id: 'fetch_record', description: 'Fetches one record by id.', inputSchema: z.object({ id: z.number().int() }), execute: async ({ context }) => output(context.id) });
    const strata = createStrataMastra({ budget: { inputCapTokens: CAP }, traceSink, // Under stream no context id is given: the run is its own context, found again by its messages; read_tool_output finds it by the call.
    contextId: method === 'stream' ? undefined : 'audit', instructions: INSTRUCTIONS, tools: { fetch_record: fetchRecord } });
    // Each step fetches one record; then the model reads back the first masked output it is shown, through the agent's own tool.
    let readRef: string | undefined;
    const { model, prompts } = scriptedModel((step, prompt) => {
      if (step <= STEPS) return { call: 'fetch_record', input: { id: step } };
      if (step === STEPS + 1) {
        readRef = [...toolTexts(prompt).values()].map((text) => /ref="([^"]+)"/.exec(text)?.[1]).find((ref) => ref !== undefined);
        return readRef ? { call: 'read_tool_output', input: { ref: readRef, lines: { start: 1, end: 3 } } } : { text: 'Done.' };
      }
      return { text: 'Done.' };
    });
    const agent = new Agent({ name: 'auditor', instructions: INSTRUCTIONS, model: model as never, tools: { fetch_record: fetchRecord, read_tool_output: strata.readToolOutput } });
    const task = 'Audit every record and report the late ones.';
    const settings = { maxSteps: STEPS + 3, prepareStep: strata.prepareStep as never };
    const text = method === 'generate' ? (await agent.generate(task, settings)).text : await (await agent.stream(task, settings)).text;

    assert.equal(text, 'Done.');
    assert.equal(prompts.length, STEPS + 2);
    // The agent ran read_tool_output itself: its result, the first lines of the stored output byte-exact, reached the last call.
    assert.ok(readRef, 'a masked output was shown before the read');
    const readResult = toolTexts(prompts.at(-1)!).get(`call-${STEPS + 1}`);
    assert.ok(readResult, 'the read result reached the model');
    const firstId = Number([...toolTexts(prompts[STEPS]!).entries()].find(([, text]) => text.includes(readRef!))![0].slice('call-'.length));
    assert.equal(readResult.slice(readResult.indexOf('\n') + 1), output(firstId).split(/(?<=\n)/).slice(0, 3).join(''));
    // One trace per model call, numbered from 1.
    assert.deepEqual(traces, prompts.map((_, index) => index + 1));
    // The window cap: every call was assembled within it, tools and instructions charged.
    budgets.forEach((tokens, index) => assert.ok(tokens <= CAP, `call ${index}: ${tokens} tokens`));
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
        if (id > STEPS || text === output(id)) continue;
        // A masked output names its reference; read_tool_output gives the whole output back byte-exact.
        const ref = /ref="([^"]+)"/.exec(text)?.[1];
        assert.ok(ref, `call ${index}: ${callId} is masked with a reference: ${text.slice(0, 200)}`);
        assert.equal(await readWhole(strata, ref, task), output(id), `call ${index}: ${callId} read back`);
        maskedSeen += 1;
      }
    }
    assert.ok(maskedSeen > 0, 'the window masked some outputs');
  });
}

test('Agent.generate: the usage Mastra reports with each step is fed back before the next step assembles, stored with the session', async () => {
  const diagnostics: ContextDiagnostic[] = [];
  const sessionStore = createMemorySessionStore();
  const fetchRecord = createTool({ id: 'fetch_record', description: 'Fetches one record by id.', inputSchema: z.object({ id: z.number().int() }), execute: async ({ context }) => recordBody(context.id) });
  const strata = createStrataMastra({ budget: { inputCapTokens: 30_000 }, contextId: 'calibrated', instructions: INSTRUCTIONS, sessionStore, tools: { fetch_record: fetchRecord }, onDiagnostic: (diagnostic) => diagnostics.push(diagnostic) });
  // The provider counts a token per character of the prompt, and more for the tools it is not shown: our estimate is low.
  const { model, prompts } = scriptedModel((step) => (step <= 3 ? { call: 'fetch_record', input: { id: step } } : { text: 'Done.' }), (prompt) => JSON.stringify(prompt).length + 1_000);
  const agent = new Agent({ name: 'auditor', instructions: INSTRUCTIONS, model: model as never, tools: { fetch_record: fetchRecord, read_tool_output: strata.readToolOutput } });
  const result = await agent.generate('Fetch records 1 to 3.', { maxSteps: 6, prepareStep: strata.prepareStep as never });
  assert.equal(result.text, 'Done.');
  assert.equal(prompts.length, 4);
  const calibrated = diagnostics.filter((diagnostic) => diagnostic.code === 'CONTEXT_USAGE_CALIBRATED');
  assert.equal(calibrated[0]?.subject, 'turn 1', "the first step's count was fed back with the second step");
  // Each step continues the stored context (Mastra's merged steps split back): the ratio stays in the session.
  const ratio = (await sessionStore.load('calibrated'))?.state?.context?.inputTokenRatio ?? 0;
  assert.ok(ratio > 1.2, `the stored calibration is ${ratio}`);
});

for (const method of ['generate', 'stream'] as const) {
  test(`Agent.${method}: onFinish feeds the run's last step's usage back, with or without a context id (one step, or steps with tool calls)`, async () => {
    for (const [label, contextId, calls] of [['a context id, one step', 'finished', 0], ['no context id, one step', undefined, 0], ['no context id, two tool steps', undefined, 2]] as const) {
      for (const withOnFinish of [true, false]) {
        const diagnostics: ContextDiagnostic[] = [];
        const sessionStore = createMemorySessionStore();
        const contexts: string[] = [];
        const traceSink: TraceSink = { async write(document) { contexts.push(document.contextId); } };
        const fetchRecord = createTool({ id: 'fetch_record', description: 'Fetches one record by id.', inputSchema: z.object({ id: z.number().int() }), execute: async ({ context }) => recordBody(context.id) });
        const strata = createStrataMastra({ budget: { inputCapTokens: 30_000 }, contextId, traceSink, instructions: INSTRUCTIONS, sessionStore, tools: { fetch_record: fetchRecord }, onDiagnostic: (diagnostic) => diagnostics.push(diagnostic) });
        // The provider counts far more than our estimate: a fed-back count calibrates the context.
        const { model, prompts } = scriptedModel((step) => (step <= calls ? { call: 'fetch_record', input: { id: step } } : { text: 'Done.' }), (prompt) => JSON.stringify(prompt).length + 2_000);
        const agent = new Agent({ name: 'auditor', instructions: INSTRUCTIONS, model: model as never, tools: { fetch_record: fetchRecord, read_tool_output: strata.readToolOutput } });
        // Mastra's stream calls onFinish as the stream ends, after its text may have resolved: the test waits for the hook.
        let fed!: () => void;
        const finished = new Promise<void>((resolve) => (fed = resolve));
        const onFinish = async (event: unknown) => {
          await strata.onFinish(event as never);
          fed();
        };
        const settings = { maxSteps: 5, prepareStep: strata.prepareStep as never, ...(withOnFinish ? { onFinish: onFinish as never } : {}) };
        const text = method === 'generate' ? (await agent.generate('Fetch the records.', settings)).text : await (await agent.stream('Fetch the records.', settings)).text;
        if (withOnFinish) await finished;
        assert.equal(text, 'Done.');
        assert.equal(prompts.length, calls + 1);
        // What the provider counted of the last prompt is stored with the context only when onFinish fed it back.
        const reported = JSON.stringify(prompts.at(-1)).length + 2_000;
        const state = (await sessionStore.load(contexts.at(-1)!))?.state?.context;
        assert.equal(state?.lastUsage?.reported === reported, withOnFinish, `${label} (${withOnFinish ? 'with' : 'without'} onFinish): stored ${JSON.stringify(state?.lastUsage)}, the last call reported ${reported}`);
        if (withOnFinish) assert.ok((state?.inputTokenRatio ?? 0) > 1.2, `${label}: the stored calibration is ${state?.inputTokenRatio}`);
        if (withOnFinish && calls === 0) assert.ok(diagnostics.some((diagnostic) => diagnostic.code === 'CONTEXT_USAGE_CALIBRATED' && diagnostic.subject === 'turn 1'), `${label}: the one step's count calibrated the context`);
      }
    }
  });
}

test('onFinish: any value is nothing fed back, never a crash', async () => {
  const diagnostics: unknown[] = [];
  const strata = createStrataMastra({ budget: { inputCapTokens: 4_000 }, instructions: INSTRUCTIONS, onDiagnostic: (diagnostic) => diagnostics.push(diagnostic) });
  for (const event of [undefined, null, 7, {}, { steps: 'no' }, { steps: [] }, { steps: [null] }, { steps: [{ usage: 'no', toolCalls: 'no' }] }]) assert.equal(await strata.onFinish(event as never), undefined, JSON.stringify(event));
  assert.deepEqual(diagnostics, [], 'nothing was fed back');
});

test('createStrataMastra: instructions that are not a string, or options that are not an object, are a ConfigurationError naming the setting', () => {
  for (const options of [undefined, null, 'budget']) assert.throws(() => createStrataMastra(options as never), (error: unknown) => ConfigurationError.isInstance(error) && error.setting === 'options');
  assert.throws(() => createStrataMastra({ budget: { inputCapTokens: 4_000 }, instructions: 42 as never }), (error: unknown) => ConfigurationError.isInstance(error) && error.setting === 'instructions');
});

test('prepareStep: any value for its arguments is a typed error or a window, never a crash on the shape', async () => {
  const strata = createStrataMastra({ budget: { inputCapTokens: 4_000 }, instructions: INSTRUCTIONS });
  for (const args of [undefined, null, 7, {}, { messages: 'no' }, { messages: [], steps: 'no' }, { messages: [5] }, { messages: [{ role: 'assistant', content: 7 }] }, { messages: [{ role: 'user', content: [{ type: 'tool-call' }] }] }]) {
    // No user message to answer: the context says so with its own error.
    await assert.rejects(strata.prepareStep(args as never), (error: unknown) => StrataError.isInstance(error), JSON.stringify(args));
  }
  const { messages } = await strata.prepareStep({ messages: [{ role: 'user', content: 'hi' }], steps: 'no' as never });
  assert.deepEqual(messages, [{ role: 'system', content: INSTRUCTIONS }, { role: 'user', content: 'hi' }]);
});

test('two concurrent runs without a context id are kept apart: each is shown and reads back only its own outputs', async () => {
  const strata = createStrataMastra({ budget: { inputCapTokens: CAP }, instructions: INSTRUCTIONS });
  const order: string[] = [];
  const runs = (['A', 'B'] as const).map((name) => {
    const body = (id: number): string => `run ${name} ${recordBody(id)}`;
    const fetchRecord = createTool({ id: 'fetch_record', description: 'Fetches one record by id.', inputSchema: z.object({ id: z.number().int() }), execute: async ({ context }) => body(context.id) });
    let readRef: string | undefined;
    const scripted = scriptedModel((step, prompt) => {
      order.push(name);
      if (step <= 8) return { call: 'fetch_record', input: { id: step } };
      readRef ??= [...toolTexts(prompt).values()].map((text) => /ref="([^"]+)"/.exec(text)?.[1]).find((ref) => ref !== undefined);
      return step === 9 && readRef ? { call: 'read_tool_output', input: { ref: readRef, lines: { start: 1, end: 1 } } } : { text: 'Done.' };
    });
    const agent = new Agent({ name: `auditor-${name}`, instructions: INSTRUCTIONS, model: scripted.model as never, tools: { fetch_record: fetchRecord, read_tool_output: strata.readToolOutput } });
    return { name, body, scripted, agent };
  });
  await Promise.all(runs.map(({ name, agent }) => agent.generate(`Audit run ${name}'s records.`, { maxSteps: 12, prepareStep: strata.prepareStep as never })));
  // The runs' model calls interleaved: B called the model before A was done.
  assert.ok(order.indexOf('B') < order.lastIndexOf('A'), order.join(''));
  const shown = await contextsShown(strata.outputStore, runs.map(({ scripted }) => scripted.prompts));
  for (const [index, { name, scripted }] of runs.entries()) {
    assert.equal(shown.refContexts[index]!.size, 1, `run ${name} is shown references of one context`);
    const [context] = shown.refContexts[index]!;
    // Its records and its own read of one: nothing of the other run.
    const other = name === 'A' ? 'B' : 'A';
    assert.ok(shown.bodies.get(context!)!.every((body) => body.includes(`run ${name} record`) && !body.includes(`run ${other} record`)), `run ${name}'s context stores only its own outputs`);
    // The agent's own read found its run's context and its record.
    const read = toolTexts(scripted.prompts.at(-1)!).get('call-9');
    assert.match(read ?? '', new RegExp(`\\nrun ${name} record \\d+ line 1:`), `run ${name} read back its own output`);
  }
  assert.notDeepEqual([...shown.refContexts[0]!], [...shown.refContexts[1]!]);
});

test('@strata/mastra needs neither ai@6 nor @strata/ai-sdk: its manifest names neither and no module it ships imports them', async () => {
  const { readFileSync, readdirSync } = await import('node:fs');
  const here = new URL('.', import.meta.url);
  const manifest = JSON.parse(readFileSync(new URL('../package.json', here), 'utf8')) as { dependencies?: Record<string, string>; peerDependencies?: Record<string, string> };
  for (const name of ['ai', '@strata/ai-sdk']) {
    assert.equal(manifest.dependencies?.[name], undefined, `${name} in dependencies`);
    assert.equal(manifest.peerDependencies?.[name], undefined, `${name} in peerDependencies`);
  }
  const shipped = readdirSync(here).filter((file) => file.endsWith('.js') && !file.includes('.test.'));
  assert.ok(shipped.includes('strata-mastra.js'));
  for (const file of shipped) assert.doesNotMatch(readFileSync(new URL(file, here), 'utf8'), /from ['"](ai|@strata\/ai-sdk)(\/[^'"]*)?['"]/, file);
});

const MEMORY_SYSTEM = 'Working memory: the user wants late records listed first.';

/**
 * Mastra's own memory base class (`MastraMemory` of @mastra/core) over an
 * in-memory thread list, whose system message Mastra adds to every prompt of
 * the thread: the smallest memory there is. The real `Memory` of
 * @mastra/memory is tested at the end of this file.
 */
class ThreadMemory extends MastraMemory {
  private readonly threads = new Map<string, unknown>();
  constructor() {
    super({ name: 'thread-memory' });
  }
  override async getSystemMessage(): Promise<string | null> { return MEMORY_SYSTEM; }
  async rememberMessages(): Promise<never> { return { messages: [], messagesV2: [] } as never; }
  async getThreadById({ threadId }: { threadId: string }): Promise<never> { return (this.threads.get(threadId) ?? null) as never; }
  async getThreadsByResourceId(): Promise<never> { return [...this.threads.values()] as never; }
  async getThreadsByResourceIdPaginated(): Promise<never> { return { threads: [...this.threads.values()], total: this.threads.size, page: 0, perPage: 100, hasMore: false } as never; }
  async saveThread({ thread }: { thread: { id: string } }): Promise<never> { this.threads.set(thread.id, thread); return thread as never; }
  async saveMessages(args: { messages: unknown[] }): Promise<never> { return args.messages as never; }
  async query(): Promise<never> { return { messages: [], uiMessages: [], messagesV2: [] } as never; }
  async deleteThread(threadId: string): Promise<void> { this.threads.delete(threadId); }
  async getWorkingMemory(): Promise<null> { return null; }
  async getWorkingMemoryTemplate(): Promise<null> { return null; }
  async updateWorkingMemory(): Promise<void> {}
  async __experimental_updateWorkingMemoryVNext(): Promise<never> { return { success: true, reason: '' } as never; }
  async deleteMessages(): Promise<void> {}
}

test("wrapModel: the system message Mastra's memory adds reaches every call, charged to the budget; prepareStep's prompt loses it", async () => {
  const rules = await loadProviderRules();
  const fetchRecord = createTool({ id: 'fetch_record', description: 'Fetches one record by id.', inputSchema: z.object({ id: z.number().int() }), execute: async ({ context }) => recordBody(context.id) });
  const script = (step: number): Move => (step <= 8 ? { call: 'fetch_record', input: { id: step } } : { text: 'Done.' });
  const task = 'Audit records 1 to 8.';

  // prepareStep (the control): Mastra rebuilds the prompt from what it returns, without the memory's message.
  const viaPrepareStep = scriptedModel(script);
  const plain = createStrataMastra({ budget: { inputCapTokens: CAP }, instructions: INSTRUCTIONS, tools: { fetch_record: fetchRecord } });
  const first = new Agent({ name: 'auditor', instructions: INSTRUCTIONS, model: viaPrepareStep.model as never, memory: new ThreadMemory(), tools: { fetch_record: fetchRecord, read_tool_output: plain.readToolOutput } });
  await first.generate(task, { maxSteps: 10, prepareStep: plain.prepareStep as never, memory: { thread: 't1', resource: 'r1' } });
  assert.ok(viaPrepareStep.prompts.every((prompt) => !JSON.stringify(prompt).includes(MEMORY_SYSTEM)), 'prepareStep is never shown the memory message');

  // wrapModel: Strata decides the prompt Mastra sends, memory included.
  const traces: ContextTraceV5[] = [];
  const traceSink: TraceSink = { async write(document) { traces.push(document.body as ContextTraceV5); } };
  const strata = createStrataMastra({ budget: { inputCapTokens: CAP }, traceSink, tools: { fetch_record: fetchRecord } });
  const wrapped = scriptedModel(script, (prompt) => JSON.stringify(prompt).length);
  const agent = new Agent({ name: 'auditor', instructions: INSTRUCTIONS, model: strata.wrapModel(wrapped.model as never), memory: new ThreadMemory(), tools: { fetch_record: fetchRecord, read_tool_output: strata.readToolOutput } });
  const result = await agent.generate(task, { maxSteps: 10, memory: { thread: 't2', resource: 'r1' } });
  assert.equal(result.text, 'Done.');
  // Mastra's memory also asks the agent's model for the thread's title, once, through the same wrapper: its own context.
  const runCalls = wrapped.prompts.filter((prompt) => prompt.some((message) => message.role === 'system' && String(message.content).includes(INSTRUCTIONS)));
  assert.equal(runCalls.length, 9);
  const runContext = traces[0]!.contextId;
  const runTraces = traces.filter((trace) => trace.contextId === runContext);
  assert.equal(runTraces.length, 9, 'one trace per call');
  assert.equal(traces.length, wrapped.prompts.length, 'the title call traced too');
  let masked = 0;
  for (const [index, prompt] of runCalls.entries()) {
    const systems = prompt.filter((message) => message.role === 'system').map((message) => String(message.content));
    assert.ok(systems.some((text) => text.includes(INSTRUCTIONS)) && systems.some((text) => text.includes(MEMORY_SYSTEM)), `call ${index}: instructions and memory: ${systems.join(' | ')}`);
    if (rules) {
      assert.deepEqual(rules.violations(asOpenAIChat(prompt), 'openai'), [], `call ${index} (openai)`);
      assert.deepEqual(rules.violations(asOpenAIChat(prompt), 'anthropic'), [], `call ${index} (anthropic)`);
    }
    // Counted: the trace's input holds the memory message, and every call was assembled within the cap.
    const trace = runTraces[index]!;
    assert.ok(trace.llmInput.messages.some((message) => message.role === 'system' && message.content.includes(MEMORY_SYSTEM)), `call ${index}: the trace counts the memory message`);
    assert.ok(trace.budget!.totalTokens <= CAP, `call ${index}: ${trace.budget!.totalTokens} tokens`);
    // Each call's usage, reported by the model, is in its trace.
    assert.equal(trace.modelCall?.usage?.inputTokens, JSON.stringify(prompt).length, `call ${index}: its usage`);
    for (const [callId, text] of toolTexts(prompt)) {
      const id = Number(callId.slice('call-'.length));
      if (text === recordBody(id)) continue;
      const ref = /ref="([^"]+)"/.exec(text)?.[1];
      assert.ok(ref, `call ${index}: ${callId} masked with a reference`);
      assert.equal(await readWhole(strata, ref, task), recordBody(id), `call ${index}: ${callId} read back`);
      masked += 1;
    }
  }
  assert.ok(masked > 0, 'the window masked some outputs');
  // The steps continue one context (Mastra's merged steps split back): the run's traces are turns 1..9 of one context.
  assert.deepEqual(runTraces.map((trace) => trace.turn), [1, 2, 3, 4, 5, 6, 7, 8, 9]);
});

test('wrapModel under agent.stream: each call assembled with the memory message, its usage in its trace; a model that is not one is a ConfigurationError', async () => {
  const traces: ContextTraceV5[] = [];
  const traceSink: TraceSink = { async write(document) { traces.push(document.body as ContextTraceV5); } };
  const fetchRecord = createTool({ id: 'fetch_record', description: 'Fetches one record by id.', inputSchema: z.object({ id: z.number().int() }), execute: async ({ context }) => recordBody(context.id) });
  const strata = createStrataMastra({ budget: { inputCapTokens: CAP }, traceSink });
  const { model, prompts } = scriptedModel((step) => (step <= 3 ? { call: 'fetch_record', input: { id: step } } : { text: 'Done.' }), (prompt) => JSON.stringify(prompt).length);
  const agent = new Agent({ name: 'auditor', instructions: INSTRUCTIONS, model: strata.wrapModel(model as never), memory: new ThreadMemory(), tools: { fetch_record: fetchRecord } });
  const output = await agent.stream('Audit records 1 to 3.', { maxSteps: 6, memory: { thread: 't3', resource: 'r1' } });
  assert.equal(await output.text, 'Done.');
  const runCalls = prompts.filter((prompt) => prompt.some((message) => message.role === 'system' && String(message.content).includes(INSTRUCTIONS)));
  assert.equal(runCalls.length, 4);
  const runTraces = traces.filter((trace) => trace.contextId === traces[0]!.contextId);
  assert.deepEqual(runTraces.map((trace) => trace.modelCall?.usage?.inputTokens), runCalls.map((prompt) => JSON.stringify(prompt).length));
  assert.ok(runCalls.every((prompt) => prompt.some((message) => message.role === 'system' && String(message.content) === MEMORY_SYSTEM)));
  for (const value of [undefined, null, 7, {}, { doGenerate: () => undefined }]) assert.throws(() => strata.wrapModel(value as never), (error: unknown) => ConfigurationError.isInstance(error) && error.setting === 'model', JSON.stringify(value));
});

test("wrapModel with Mastra's real Memory (@mastra/memory over its InMemoryStore): the second call of a thread recalls the first, working memory's system message is charged, every call valid and within the cap", async () => {
  const rules = await loadProviderRules();
  const traces: ContextTraceV5[] = [];
  const traceSink: TraceSink = { async write(document) { traces.push(document.body as ContextTraceV5); } };
  const fetchRecord = createTool({ id: 'fetch_record', description: 'Fetches one record by id.', inputSchema: z.object({ id: z.number().int() }), execute: async ({ context }) => recordBody(context.id) });
  const strata = createStrataMastra({ budget: { inputCapTokens: CAP }, traceSink, tools: { fetch_record: fetchRecord } });
  // Each generate calls fetch_record for its four records, one a step, then answers: read off the results after its newest request.
  const { model, prompts } = scriptedModel((_step, prompt) => {
    // The request: the newest user message that is not data (Strata sends the newest step's whole output as a data_only one).
    const newest = prompt.findLastIndex((message) => message.role === 'user' && !JSON.stringify(message.content).includes('authority=\\"data_only\\"'));
    const second = JSON.stringify(prompt[newest]).includes('5 to 8');
    const fetched = prompt.slice(newest).flatMap((message) => (message.role === 'tool' && Array.isArray(message.content) ? message.content : [])).length;
    if (fetched < 4) return { call: 'fetch_record', input: { id: (second ? 5 : 1) + fetched } };
    return { text: second ? 'Done.' : 'First four audited.' };
  });
  const memory = new Memory({ storage: new InMemoryStore(), options: { lastMessages: 40, threads: { generateTitle: false }, workingMemory: { enabled: true, template: '# Audit\n- Late records first:' } } });
  const agent = new Agent({ name: 'auditor', instructions: INSTRUCTIONS, model: strata.wrapModel(model as never), memory, tools: { fetch_record: fetchRecord, read_tool_output: strata.readToolOutput } });
  const thread = { thread: 'audit-thread', resource: 'auditor-1' };
  assert.equal((await agent.generate('Audit records 1 to 4.', { maxSteps: 8, memory: thread })).text, 'First four audited.');
  const firstCalls = prompts.length;
  assert.equal((await agent.generate('Now audit records 5 to 8.', { maxSteps: 8, memory: thread })).text, 'Done.');
  const runCalls = prompts.filter((prompt) => prompt.some((message) => message.role === 'system' && String(message.content).includes(INSTRUCTIONS)));
  assert.equal(runCalls.length, 10, `five calls per generate: ${firstCalls} then ${prompts.length - firstCalls}`);
  assert.equal(traces.length, prompts.length, 'one trace per call');

  // The second generate's calls carry what memory recalled of the first: its request and its answer.
  for (const prompt of prompts.slice(firstCalls)) {
    const text = JSON.stringify(prompt);
    assert.ok(text.includes('Audit records 1 to 4.') && text.includes('First four audited.'), 'the thread recalled');
  }
  let masked = 0;
  for (const [index, prompt] of runCalls.entries()) {
    const systems = prompt.filter((message) => message.role === 'system').map((message) => String(message.content));
    assert.ok(systems.some((text) => text.includes('Late records first')), `call ${index}: working memory's system message kept`);
    if (rules) {
      assert.deepEqual(rules.violations(asOpenAIChat(prompt), 'openai'), [], `call ${index} (openai)`);
      assert.deepEqual(rules.violations(asOpenAIChat(prompt), 'anthropic'), [], `call ${index} (anthropic)`);
    }
    const trace = traces[prompts.indexOf(prompt)]!;
    assert.ok(trace.llmInput.messages.some((message) => message.role === 'system' && message.content.includes('Late records first')), `call ${index}: the trace charges working memory`);
    assert.ok(trace.budget!.totalTokens <= CAP, `call ${index}: ${trace.budget!.totalTokens} tokens`);
    for (const [callId, text] of toolTexts(prompt)) {
      const body = [...Array(9).keys()].map(recordBody).find((candidate) => candidate === text);
      if (body !== undefined) continue;
      const ref = /ref="([^"]+)"/.exec(text)?.[1];
      assert.ok(ref, `call ${index}: ${callId} masked with a reference: ${text.slice(0, 80)}`);
      const read = await readWhole(strata, ref, index < 5 ? 'Audit records 1 to 4.' : 'Now audit records 5 to 8.');
      assert.ok([...Array(9).keys()].some((id) => recordBody(id) === read), `call ${index}: ${callId} read back byte-exact`);
      masked += 1;
    }
  }
  assert.ok(masked > 0, 'the window masked some outputs');
});
