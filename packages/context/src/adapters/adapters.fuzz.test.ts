// Fuzz suite of every importer and exporter (issue 10): for any input, one
// typed ContextInputError or a canonical history that passes
// checkCanonicalHistory, converts out without throwing and breaks no
// converter rule of the provider oracle. Runs per property: STRATA_FUZZ_RUNS
// (default 200; `node scripts/fuzz.mjs` runs 20,000).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { modelMessageSchema } from 'ai';
import { loadProviderRules } from '@strata/testing';
import { checkCanonicalHistory } from '../canonical-history-check.js';
import { ContextInputError } from '../errors/context-input-error.js';
import type { AssistantMessage, CanonicalMessage, JsonValue, MediaPart, ToolCall } from '../messages.js';
import { fromAiSdkMessages, toAiSdkMessages, toAiSdkMessagesDetailed } from './ai-sdk-messages.js';
import { fromAnthropicMessages, toAnthropicMessages, toAnthropicMessagesDetailed } from './anthropic-messages.js';
import { fromOpenAIChat, toOpenAIChat, toOpenAIChatDetailed } from './openai-chat.js';
import { fromShareGPT, fromSweAgentTrajectory, fromTauBenchRun, fromTauBenchTranscript, importTrajectories } from './trajectories.js';
import { fromClaudeCodeSession } from './trajectories-claude-code.js';
import { fromCodexRollout } from './trajectories-codex.js';
import { fromAlpacaRecord, fromLlamaFactoryRecord } from './trajectories-llama-factory.js';
import { fromMiniSweAgentTrajectory } from './trajectories-mini-swe-agent.js';
import { fromOpenHandsEvents } from './trajectories-openhands.js';

/** Runs per property: `STRATA_FUZZ_RUNS` (default 200); `scripts/fuzz.mjs` sets 20,000. */
const FUZZ_RUNS = Number(process.env.STRATA_FUZZ_RUNS ?? 200);
/** `STRATA_FUZZ_SEED` replays a reported failure. */
const FUZZ_PARAMETERS: fc.Parameters<unknown> = {
  numRuns: FUZZ_RUNS,
  ...(process.env.STRATA_FUZZ_SEED ? { seed: Number(process.env.STRATA_FUZZ_SEED) } : {}),
};

type Violations = (messages: unknown[], provider: 'openai' | 'anthropic') => { index: number; rule: string; detail: string }[];

/**
 * Oracle rules a converter alone decides: every message has a known role, and
 * every call a non-empty id unique within its message and JSON arguments. The
 * other rules (order, pairing, emptiness, who speaks first) concern what the
 * history holds; the assembler's window and validator repair those, and the
 * assembler fuzz property checks them.
 */
const CONVERTER_RULES: ReadonlySet<string> = new Set(['known-role', 'call-id', 'call-id-unique', 'call-arguments-json']);

/**
 * The property every importer must hold for any input: one typed
 * `ContextInputError`, or a history that passes `checkCanonicalHistory`,
 * converts out to every format without throwing (to JSON-serializable
 * output), and whose OpenAI chat form breaks none of the converter rules of
 * the oracle for either provider. Returns the history when there is one.
 */
function assertImportTotal(run: () => CanonicalMessage[], violations: Violations | undefined): CanonicalMessage[] | undefined {
  let history: CanonicalMessage[];
  try {
    history = run();
  } catch (error) {
    if (ContextInputError.isInstance(error)) return undefined;
    throw error;
  }
  checkCanonicalHistory(history);
  const openai = toOpenAIChatDetailed(history);
  JSON.stringify(toAnthropicMessagesDetailed(history));
  JSON.stringify(openai);
  const aiSdk = toAiSdkMessagesDetailed(history);
  JSON.stringify(aiSdk);
  // The AI SDK's own schema is the independent check of what we hand it.
  aiSdk.messages.forEach((message, index) => assert.ok(modelMessageSchema.safeParse(message).success, `AI SDK message ${index} fails modelMessageSchema`));
  if (violations) {
    for (const provider of ['openai', 'anthropic'] as const) {
      assert.deepEqual(violations(openai.messages, provider).filter((violation) => CONVERTER_RULES.has(violation.rule)), [], provider);
    }
  }
  return history;
}

// Structure-aware generators: valid canonical histories, the provider form of
// which the near-valid generators then damage in one place.

const text = fc.oneof(
  fc.constantFrom('ok', 'the result', '上下文 压缩', '{"a":1}', '42', 'line\nline', '<tool>', 'emoji 🧪'),
  fc.string({ minLength: 1, maxLength: 20 }),
);
const nonBlank = text.filter((value) => value.trim() !== '');
const jsonArbitrary: fc.Arbitrary<JsonValue> = fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<JsonValue>;
const base64 = fc.constantFrom('iVBORw0KGgoAAAANSUhEUg==', '/9j/4AAQ', 'JVBERi0xLjQK', 'aGVsbG8=', '');
const media: fc.Arbitrary<MediaPart> = fc.oneof(
  fc.record({ type: fc.constant('image' as const), mediaType: fc.constantFrom('image/png', 'image/jpeg'), data: base64 }),
  fc.record({ type: fc.constant('image' as const), mediaType: fc.constant('image/*'), url: fc.constantFrom('https://example.com/a.png', 'https://x.test/b') }),
  fc.record({ type: fc.constant('file' as const), mediaType: fc.constantFrom('application/pdf', 'text/plain', 'application/zip'), data: fc.constantFrom('JVBERi0xLjQK', 'aGVsbG8=') }, { requiredKeys: ['type', 'mediaType', 'data'] }),
  fc.record({ type: fc.constant('file' as const), mediaType: fc.constant('application/pdf'), url: fc.constant('https://example.com/p.pdf') }),
);
const mediaList = fc.array(media, { maxLength: 2 });

type Step = { kind: 'user'; text: string; media: MediaPart[] } | { kind: 'say'; text: string } | { kind: 'tools'; text: string; calls: Array<{ name: string; input: JsonValue; result: string; isError: boolean; media: MediaPart[] }> };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('user' as const), text: nonBlank, media: mediaList }),
  fc.record({ kind: fc.constant('say' as const), text: nonBlank }),
  fc.record({
    kind: fc.constant('tools' as const),
    text: fc.oneof(fc.constant(''), nonBlank),
    calls: fc.array(fc.record({ name: fc.constantFrom('search', 'read_file', 'render'), input: fc.oneof(jsonArbitrary, text), result: text, isError: fc.boolean(), media: mediaList }), { minLength: 1, maxLength: 3 }),
  }),
);

/**
 * Canonical histories every provider accepts: optional system prompt, a user
 * turn first, tool results right after their calls, unique call ids, media,
 * reasoning with signatures and provider metadata.
 */
const validHistoryArbitrary: fc.Arbitrary<CanonicalMessage[]> = fc
  .tuple(fc.option(nonBlank, { nil: undefined }), nonBlank, mediaList, fc.array(step, { maxLength: 8 }), fc.boolean())
  .map(([system, first, firstMedia, steps, signed]) => {
    const history: CanonicalMessage[] = system === undefined ? [] : [{ role: 'system', content: system }];
    history.push(firstMedia.length > 0 ? { role: 'user', content: first, media: firstMedia } : { role: 'user', content: first });
    let callNumber = 0;
    for (const item of steps) {
      if (item.kind === 'user') history.push(item.media.length > 0 ? { role: 'user', content: item.text, media: item.media } : { role: 'user', content: item.text });
      else if (item.kind === 'say') history.push({ role: 'assistant', content: item.text });
      else {
        const calls: ToolCall[] = item.calls.map((call) => ({ id: `call_${(callNumber += 1)}`, name: call.name, input: call.input }));
        const assistant: AssistantMessage = { role: 'assistant', content: item.text, toolCalls: calls };
        history.push(signed ? { ...assistant, reasoning: [{ text: 'thinking', providerMetadata: { anthropic: { signature: `sig${callNumber}` } } }] } : assistant);
        item.calls.forEach((call, index) => {
          const result: CanonicalMessage = { role: 'tool', toolCallId: calls[index]!.id, toolName: call.name, content: call.result, ...(call.isError ? { isError: true } : {}) };
          history.push(call.media.length > 0 ? { ...result, media: call.media } : result);
        });
      }
    }
    return history;
  });

const DELETE = Symbol('delete');
/** Replace a leaf with another value of its own kind (a string with a string, ...). */
const SAME_KIND = Symbol('same kind');

/** Every path (list of keys) to a node of a JSON value, found without recursion. */
function paths(value: unknown): Array<Array<string | number>> {
  const found: Array<Array<string | number>> = [];
  const stack: Array<{ node: unknown; path: Array<string | number> }> = [{ node: value, path: [] }];
  while (stack.length > 0) {
    const { node, path } = stack.pop()!;
    found.push(path);
    if (Array.isArray(node)) node.forEach((item, index) => stack.push({ node: item, path: [...path, index] }));
    else if (typeof node === 'object' && node !== null) for (const [key, item] of Object.entries(node)) stack.push({ node: item, path: [...path, key] });
  }
  return found;
}

/** `[[[...value...]]]`, `depth` levels. */
function nestedArrays(depth: number, value: unknown): unknown {
  let nested = value;
  for (let level = 0; level < depth; level += 1) nested = [nested];
  return nested;
}

const replacement: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.constant(SAME_KIND) },
  { weight: 4, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
  { weight: 2, arbitrary: fc.constant(DELETE) },
  { weight: 1, arbitrary: fc.anything({ maxDepth: 2 }) },
  { weight: 1, arbitrary: fc.integer({ min: 400, max: 3_000 }).map((depth) => nestedArrays(depth, {})) },
  { weight: 1, arbitrary: fc.constantFrom('', 'user', 'assistant', 'tool', 'system', 'text', 'image', 'tool_result', 'tool-result', 'json', 'content', null, [], {}) },
);

/**
 * A copy of `value` (JSON) damaged at one random node: replaced with a value
 * of its own kind or another value (JSON, anything, a role or type name,
 * arrays nested up to 3,000 deep), or deleted.
 */
function nearValid(value: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  const sameKind = fc.record({ string: fc.string({ maxLength: 12 }), number: fc.oneof(fc.integer(), fc.double()), boolean: fc.boolean() });
  return fc.tuple(value, fc.nat(), replacement, sameKind).map(([original, pick, chosen, kinds]) => {
    // A text format (a transcript) is damaged in one place of its text.
    if (typeof original === 'string') return original.slice(0, pick % (original.length + 1)) + kinds.string + original.slice(pick % (original.length + 1));
    const copy = JSON.parse(JSON.stringify(original)) as unknown;
    const all = paths(copy).slice(1);
    if (all.length === 0) return chosen === DELETE || chosen === SAME_KIND ? undefined : chosen;
    const path = all[pick % all.length]!;
    let parent = copy as Record<string | number, unknown>;
    for (const key of path.slice(0, -1)) parent = parent[key] as Record<string | number, unknown>;
    const last = path.at(-1)!;
    const current = parent[last];
    const next = chosen !== SAME_KIND ? chosen : typeof current === 'string' ? kinds.string : typeof current === 'number' ? kinds.number : typeof current === 'boolean' ? kinds.boolean : current;
    if (next !== DELETE) parent[last] = next;
    else if (Array.isArray(parent)) parent.splice(last as number, 1);
    else delete parent[last];
    return copy;
  });
}

/** ShareGPT records: a system prompt, human / gpt turns, function calls and observations. */
const shareGptArbitrary: fc.Arbitrary<unknown> = fc.record(
  {
    system: text,
    conversations: fc.array(
      fc.oneof(
        fc.record({ from: fc.constantFrom('human', 'gpt', 'user', 'assistant', 'observation', 'system'), value: text }),
        fc.record({ from: fc.constant('function_call'), value: fc.record({ name: fc.constantFrom('search', 'lookup'), arguments: fc.oneof(jsonArbitrary, jsonArbitrary.map((value) => JSON.stringify(value))) }).map((call) => JSON.stringify(call)) }),
      ),
      { maxLength: 8 },
    ),
  },
  { requiredKeys: ['conversations'] },
);

/** ShareGPT preference records (LLaMA-Factory DPO): the chosen answer is the last turn. */
const preferenceArbitrary: fc.Arbitrary<unknown> = fc.record({
  conversations: fc.array(fc.record({ from: fc.constantFrom('human', 'gpt'), value: text }), { minLength: 1, maxLength: 4 }),
  chosen: fc.record({ from: fc.constant('gpt'), value: text }),
  rejected: fc.record({ from: fc.constant('gpt'), value: text }),
});

const exitRecord = { role: 'exit', content: 'Submitted', extra: { exit_status: 'Submitted', submission: '' } };

/** mini-SWE-agent v2 trajectories: a tool-calling run as OpenAI chat with `extra`, ended by the exit record. */
const miniSweAgentArbitrary: fc.Arbitrary<unknown> = validHistoryArbitrary.map((history) => ({
  info: { exit_status: 'Submitted' },
  messages: [...toOpenAIChat(history).map((message) => ({ ...message, extra: { timestamp: 1 } })), exitRecord],
  trajectory_format: 'mini-swe-agent-1.1',
}));

/** mini-SWE-agent v2 text-based runs: each call an `extra.actions` command, each result the user observation after it. */
const miniSweAgentTextArbitrary: fc.Arbitrary<unknown> = validHistoryArbitrary.map((history) => ({
  messages: [
    ...history.map((message) =>
      message.role === 'assistant'
        ? { role: 'assistant', content: message.content, extra: { actions: (message.toolCalls ?? []).map((call) => ({ command: JSON.stringify(call.input) })) } }
        : message.role === 'tool'
          ? { role: 'user', content: message.content, extra: { returncode: message.isError ? 1 : 0 } }
          : { role: message.role, content: message.content },
    ),
    exitRecord,
  ],
  trajectory_format: 'mini-swe-agent-1.1',
}));

/** OpenHands events: messages as message actions, each step's calls as actions of one model response, results as observations. */
const openHandsArbitrary: fc.Arbitrary<unknown> = validHistoryArbitrary.map((history) => {
  const events: unknown[] = [];
  const idOf = new Map<string, number>();
  history.forEach((message, index) => {
    const id = events.length;
    if (message.role === 'system') events.push({ id, source: 'agent', action: 'system', args: { content: message.content } });
    else if (message.role === 'user') events.push({ id, source: 'user', action: 'message', args: { content: message.content } });
    else if (message.role === 'tool') events.push({ id, source: 'agent', observation: 'run', cause: idOf.get(message.toolCallId), content: message.content, tool_call_metadata: { tool_call_id: message.toolCallId, function_name: message.toolName } });
    else if (!message.toolCalls?.length) events.push({ id, source: 'agent', action: 'message', args: { content: message.content } });
    else {
      const response = { id: `response_${index}`, choices: [{ message: { role: 'assistant', content: message.content, tool_calls: toOpenAIChat([message])[0]!.tool_calls } }] };
      for (const call of message.toolCalls) {
        idOf.set(call.id, events.length);
        events.push({ id: events.length, source: 'agent', action: 'run', args: { command: call.name, thought: message.content }, tool_call_metadata: { tool_call_id: call.id, function_name: call.name, model_response: response, total_calls_in_response: message.toolCalls.length } });
      }
    }
  });
  return events;
});

/** Claude Code session lines: one line per assistant block (sharing the message id), user turns and their tool results as user lines. */
const claudeCodeArbitrary: fc.Arbitrary<unknown> = validHistoryArbitrary.map((history) => {
  const lines: unknown[] = [{ type: 'summary', summary: 'a session', leafUuid: 'u0' }];
  toAnthropicMessages(history).messages.forEach((message, index) => {
    const blocks = message.role === 'assistant' ? message.content.map((block) => [block]) : [message.content];
    blocks.forEach((content, part) => {
      lines.push({ type: message.role, uuid: `u${index}_${part}`, parentUuid: null, isSidechain: false, sessionId: 's', message: { id: `msg_${index}`, role: message.role, content } });
    });
  });
  return lines;
});

/** Codex rollout lines: session metadata, then each message, reasoning, call and output as a response item. */
const codexArbitrary: fc.Arbitrary<unknown> = validHistoryArbitrary.map((history) => {
  const item = (payload: unknown) => ({ timestamp: '2025-01-01T00:00:00Z', type: 'response_item', payload });
  const lines: unknown[] = [{ timestamp: '2025-01-01T00:00:00Z', type: 'session_meta', payload: { id: 's', base_instructions: { text: 'You are Codex.' } } }];
  for (const message of history) {
    if (message.role === 'system' || message.role === 'user') lines.push(item({ type: 'message', role: message.role === 'system' ? 'developer' : 'user', content: [{ type: 'input_text', text: message.content }] }));
    else if (message.role === 'tool') lines.push(item({ type: 'function_call_output', call_id: message.toolCallId, output: message.isError ? { content: message.content, success: false } : message.content }));
    else {
      for (const part of message.reasoning ?? []) lines.push(item({ type: 'reasoning', summary: [{ type: 'summary_text', text: part.text }], encrypted_content: 'enc' }));
      if (message.content !== '') lines.push(item({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: message.content }] }));
      for (const call of message.toolCalls ?? []) lines.push(item({ type: 'function_call', name: call.name, arguments: JSON.stringify(call.input), call_id: call.id }));
      lines.push({ timestamp: '2025-01-01T00:00:00Z', type: 'event_msg', payload: { type: 'token_count' } });
    }
  }
  return lines;
});

/** LLaMA-Factory v1 records: content parts of text, reasoning and tool calls. */
const llamaFactoryArbitrary: fc.Arbitrary<unknown> = validHistoryArbitrary.map((history) => ({
  messages: history.map((message) => ({
    role: message.role,
    content:
      message.role === 'assistant'
        ? [
            ...(message.reasoning ?? []).map((part) => ({ type: 'reasoning', value: part.text })),
            { type: 'text', value: message.content },
            ...(message.toolCalls ?? []).map((call) => ({ type: 'tool_call', value: JSON.stringify({ name: call.name, arguments: call.input }) })),
          ]
        : [{ type: 'text', value: message.content }],
  })),
}));

const alpacaArbitrary: fc.Arbitrary<unknown> = fc.record(
  { instruction: text, input: text, output: text, system: text, history: fc.array(fc.tuple(text, text), { maxLength: 3 }) },
  { requiredKeys: ['instruction', 'output'] },
);

const rules = await loadProviderRules();
const violations: Violations | undefined = rules?.violations;
if (!violations) console.log('# notice: provider-rules oracle absent; fuzz properties run without its checks');

const json = (value: unknown): unknown => JSON.parse(JSON.stringify(value));

/** Roles with call ids and answered ids: what every format must keep of a valid history. */
function skeleton(history: readonly CanonicalMessage[]): string[] {
  return history.flatMap((message) =>
    message.role === 'assistant' ? (message.toolCalls ?? []).map((call) => `call ${call.id} ${call.name}`) : message.role === 'tool' ? [`result ${message.toolCallId}`] : [],
  );
}

/** A valid history after a round trip through a format is still one every provider accepts. */
function assertProviderValid(history: readonly CanonicalMessage[]): void {
  if (!violations) return;
  const messages = toOpenAIChat(history);
  assert.deepEqual(violations(messages, 'openai'), []);
  assert.deepEqual(violations(messages, 'anthropic'), []);
}

test('valid histories: AI SDK round trip is exact (but a failed result with media), OpenAI and Anthropic keep every call and stay provider-valid', () => {
  fc.assert(
    fc.property(validHistoryArbitrary, (history) => {
      assertProviderValid(history);
      const expected = history.map((message) => (message.role === 'tool' && message.media && message.isError ? { ...message, isError: undefined } : message));
      assert.deepEqual(json(fromAiSdkMessages(json(toAiSdkMessages(history)))), json(expected));
      for (const back of [fromOpenAIChat(json(toOpenAIChat(history))), fromAnthropicMessages(json(toAnthropicMessages(history)))]) {
        checkCanonicalHistory(back);
        assert.deepEqual(skeleton(back), skeleton(history));
        assertProviderValid(back);
      }
    }),
    FUZZ_PARAMETERS,
  );
});

/** `[entry point, near-valid input]` for every importer. */
const entryPoints: Array<[string, (input: unknown) => CanonicalMessage[], fc.Arbitrary<unknown>]> = [
  ['fromOpenAIChat', (input) => fromOpenAIChat(input), validHistoryArbitrary.map(toOpenAIChat)],
  ['fromTauBenchRun', fromTauBenchRun, validHistoryArbitrary.map((history) => ({ task_id: 1, traj: toOpenAIChat(history) }))],
  [
    'fromSweAgentTrajectory',
    fromSweAgentTrajectory,
    validHistoryArbitrary.map((history) => ({
      history: toOpenAIChat(history).map(({ tool_call_id, ...message }) => (tool_call_id === undefined ? message : { ...message, tool_call_ids: [tool_call_id] })),
    })),
  ],
  ['fromAnthropicMessages', fromAnthropicMessages, validHistoryArbitrary.map(toAnthropicMessages)],
  ['fromAiSdkMessages', fromAiSdkMessages, validHistoryArbitrary.map(toAiSdkMessages)],
  ['fromShareGPT', fromShareGPT, shareGptArbitrary],
  ['fromShareGPT (preference)', fromShareGPT, preferenceArbitrary],
  ['fromMiniSweAgentTrajectory', fromMiniSweAgentTrajectory, miniSweAgentArbitrary],
  ['fromMiniSweAgentTrajectory (text-based)', fromMiniSweAgentTrajectory, miniSweAgentTextArbitrary],
  ['fromOpenHandsEvents', fromOpenHandsEvents, openHandsArbitrary],
  ['fromClaudeCodeSession', fromClaudeCodeSession, claudeCodeArbitrary],
  ['fromClaudeCodeSession (JSONL text)', fromClaudeCodeSession, claudeCodeArbitrary.map((lines) => (lines as unknown[]).map((line) => JSON.stringify(line)).join('\n'))],
  ['fromCodexRollout', fromCodexRollout, codexArbitrary],
  ['fromCodexRollout (JSONL text)', fromCodexRollout, codexArbitrary.map((lines) => (lines as unknown[]).map((line) => JSON.stringify(line)).join('\n'))],
  ['fromLlamaFactoryRecord', fromLlamaFactoryRecord, llamaFactoryArbitrary],
  ['fromAlpacaRecord', fromAlpacaRecord, alpacaArbitrary],
  [
    'fromTauBenchTranscript',
    fromTauBenchTranscript,
    validHistoryArbitrary.map((history) => history.map((message) => `${message.role}: ${message.role === 'assistant' && message.toolCalls ? 'None' : message.content}`).join('\n')),
  ],
];

test('importTrajectories: any text gives trajectories that pass the canonical check and typed errors, never a throw', () => {
  const text = fc.oneof(
    fc.string(),
    fc.jsonValue().map((value) => JSON.stringify(value)),
    fc.array(nearValid(validHistoryArbitrary.map(toOpenAIChat)), { maxLength: 3 }).map((records) => records.map((record) => JSON.stringify(record)).join('\n')),
    // Session files written line by line, damaged in one line.
    ...[claudeCodeArbitrary, codexArbitrary, openHandsArbitrary].map((session) => nearValid(session).map((lines) => (Array.isArray(lines) ? lines.map((line) => JSON.stringify(line) ?? 'undefined').join('\n') : JSON.stringify(lines) ?? ''))),
  );
  fc.assert(
    fc.property(text, (input) => {
      let imported: ReturnType<typeof importTrajectories>;
      try {
        imported = importTrajectories(input);
      } catch (error) {
        // Nothing of a known format at all is one typed error.
        assert.ok(ContextInputError.isInstance(error), String(error));
        return;
      }
      for (const trajectory of imported.trajectories) checkCanonicalHistory(trajectory.messages);
      for (const error of imported.errors) assert.ok(ContextInputError.isInstance(error));
    }),
    FUZZ_PARAMETERS,
  );
});

for (const [name, run, valid] of entryPoints) {
  test(`${name}: any JSON value, anything, or a valid input damaged in one place gives an input error or a usable history`, () => {
    for (const input of [fc.jsonValue(), fc.anything(), nearValid(valid)]) {
      fc.assert(
        fc.property(input, (value) => {
          assertImportTotal(() => run(value), violations);
        }),
        FUZZ_PARAMETERS,
      );
    }
  });
}

test('the near-valid generator really reaches deep into each format (a history comes back often)', () => {
  for (const [name, run, valid] of entryPoints) {
    let accepted = 0;
    fc.assert(
      fc.property(nearValid(valid), (value) => {
        if (assertImportTotal(() => run(value), violations)) accepted += 1;
      }),
      { ...FUZZ_PARAMETERS, numRuns: 200 },
    );
    console.log(`# ${name}: ${accepted} of 200 damaged inputs imported`);
    assert.ok(accepted >= 10, `${name}: only ${accepted} of 200 damaged inputs imported`);
  }
});
