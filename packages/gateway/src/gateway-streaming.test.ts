import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { fromAnthropicMessages, toOpenAIChat } from '@strata/context';
import { loadProviderRules, type ProviderRules } from '@strata/testing';
import { startGateway } from './gateway-server.js';
import { listen, recordedOutputs, answeringUpstream, WINDOW, type UpstreamBody as Body } from './testing/gateway-fixtures.js';

const TASK = 'TASK: find why marshmallow serialises a TimeDelta field with a rounding error and propose the fix.';
const directory = mkdtempSync(join(tmpdir(), 'strata-gateway-streaming-'));
after(() => rmSync(directory, { recursive: true, force: true }));

const completion = (message: Record<string, unknown>, promptTokens: number) => ({ id: `chatcmpl-${promptTokens}`, object: 'chat.completion', created: 1_700_000_000, model: 'gpt-test', choices: [{ index: 0, message, finish_reason: message.tool_calls ? 'tool_calls' : 'stop' }], usage: { prompt_tokens: promptTokens, completion_tokens: 7, total_tokens: promptTokens + 7 } });
const call = (id: string, name: string, args: unknown) => ({ id, type: 'function', function: { name, arguments: JSON.stringify(args) } });
/** The reference of the first masked output a request shows. */
function maskedRef(body: Body): string {
  // In the request's JSON the reference's quotes are escaped.
  const found = /ref=\\?"(out_[^"\\]+)/.exec(JSON.stringify(body.messages));
  assert.ok(found, 'a masked output in the request');
  return found[1]!;
}

/** The chunks of a streamed chat completion as the client sees them: text, calls by index, the last chunk's usage and strata field. */
async function readChatStream(stream: AsyncIterable<OpenAI.Chat.Completions.ChatCompletionChunk>, onText?: () => void) {
  let content = '';
  const calls: Array<{ id: string; name: string; arguments: string }> = [];
  const indexes: number[] = [];
  let last: Record<string, any> | undefined;
  let finish: string | null = null;
  for await (const chunk of stream) {
    last = chunk as unknown as Record<string, any>;
    for (const choice of chunk.choices) {
      if (choice.delta.content) {
        content += choice.delta.content;
        onText?.();
      }
      finish = choice.finish_reason ?? finish;
      for (const delta of choice.delta.tool_calls ?? []) {
        indexes.push(delta.index);
        calls[delta.index] ??= { id: '', name: '', arguments: '' };
        calls[delta.index]!.id += delta.id ?? '';
        calls[delta.index]!.name += delta.function?.name ?? '';
        calls[delta.index]!.arguments += delta.function?.arguments ?? '';
      }
    }
  }
  return { content, calls, indexes, usage: last?.usage, strata: last?.strata, finish };
}

function checkRequests(rules: ProviderRules | undefined, requests: readonly Body[], providers: ReadonlyArray<'openai' | 'anthropic'>): void {
  for (const [index, body] of requests.entries()) {
    const messages = providers.includes('openai') ? body.messages : toOpenAIChat(fromAnthropicMessages(body));
    for (const provider of providers) if (rules) assert.deepEqual(rules.violations(messages, provider), [], `request ${index} (${provider})`);
    assert.ok(JSON.stringify(body.messages).includes(TASK), `request ${index}: the task`);
  }
}

test('openai streaming: events reach the client while the upstream still streams; a read round is held and answered; usage is the stream\'s; a second gateway process on the same SQLite file continues with the same bytes', { timeout: 20_000 }, async (t) => {
  const outputs = recordedOutputs();
  const rules = await loadProviderRules();
  if (!outputs) return t.skip('../shared is absent');
  // The final answer's stream waits after its first text piece until the client has received it: a gateway that buffered would never finish.
  let sawText!: () => void;
  const textSeen = new Promise<void>((resolve) => {
    sawText = resolve;
  });
  const upstream = answeringUpstream(
    'openai',
    (body, index) => {
      if (index === 0) return completion({ role: 'assistant', content: null, tool_calls: [call('read-0', 'read_tool_output', { ref: maskedRef(body), lines: { start: 1, end: 3 } })] }, 1_111);
      if (index === 1) return completion({ role: 'assistant', content: 'The fix: round the microseconds instead of truncating them.' }, 2_222);
      return completion({ role: 'assistant', content: 'Done.' }, 3_333);
    },
    async (request, event) => {
      if (request === 1 && event === 2) await textSeen;
    },
  );
  const upstreamUrl = await listen(upstream.server);
  t.after(() => upstream.server.close());
  const store = `sqlite:${join(directory, 'streaming.db')}`;
  const first = await startGateway({ upstream: upstreamUrl, windowTokens: WINDOW, store, port: 0 });
  t.after(() => first.close());
  const tools: OpenAI.Chat.Completions.ChatCompletionTool[] = [{ type: 'function', function: { name: 'run_step', description: 'Runs one step.', parameters: { type: 'object', properties: { step: { type: 'integer' } } } } }];
  const history: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [
    { role: 'system', content: 'You are a careful maintainer of marshmallow.' },
    { role: 'user', content: TASK },
    { role: 'assistant', content: null, tool_calls: [{ id: 'call-0', type: 'function', function: { name: 'run_step', arguments: '{"step":0}' } }] },
    { role: 'tool', tool_call_id: 'call-0', content: outputs[3]! },
  ];
  const client = new OpenAI({ baseURL: first.url, apiKey: 'k', maxRetries: 0 });
  const seen = await readChatStream(await client.chat.completions.create({ model: 'gpt-test', messages: history, tools, stream: true }), sawText);
  assert.equal(seen.content, 'The fix: round the microseconds instead of truncating them.');
  assert.deepEqual(seen.calls, [], 'the client never sees the read call');
  assert.equal(seen.finish, 'stop');
  assert.equal(seen.usage?.prompt_tokens, 2_222, "the usage of the last upstream stream's usage chunk");
  assert.equal(seen.strata?.readToolOutputCalls, 1);
  assert.equal(upstream.requests.length, 2);
  assert.ok(upstream.requests.every((body) => body.stream === true && body.stream_options?.include_usage === true), 'upstream called streamed');
  const round = upstream.requests[1]!.messages.slice(-2);
  assert.equal(round[0]!.tool_calls?.[0]?.function?.name, 'read_tool_output', 'the round is sent upstream');
  assert.equal(round[1]!.tool_call_id, 'read-0');

  // The next request reaches another process over the same file: it sends what the first sent, then what is new.
  await first.close();
  const second = await startGateway({ upstream: upstreamUrl, windowTokens: WINDOW, store, port: 0 });
  t.after(() => second.close());
  const next = [...history, { role: 'assistant' as const, content: seen.content }, { role: 'user' as const, content: 'Is the fix done?' }];
  const answer = await new OpenAI({ baseURL: second.url, apiKey: 'k', maxRetries: 0 }).chat.completions.create({ model: 'gpt-test', messages: next, tools });
  assert.equal(answer.choices[0]!.message.content, 'Done.');
  const previous = upstream.requests[1]!.messages;
  const continued = upstream.requests[2]!.messages;
  assert.deepEqual(continued.slice(0, previous.length), previous, 'the same bytes as the last request, the read round included');
  assert.deepEqual(continued.slice(previous.length).map((message) => message.role), ['assistant', 'user']);
  checkRequests(rules, upstream.requests, ['openai']);
});

test('an answer with a client call and a read: the client gets its call alone (numbered from 0), the read is answered, and the history it sends back is valid for both providers with the read round before its call', { timeout: 20_000 }, async (t) => {
  const outputs = recordedOutputs();
  const rules = await loadProviderRules();
  if (!outputs) return t.skip('../shared is absent');
  const upstream = answeringUpstream('openai', (body, index) => {
    if (index === 0) return completion({ role: 'assistant', content: null, tool_calls: [call('read-0', 'read_tool_output', { ref: maskedRef(body), lines: { start: 1, end: 2 } }), call('call-1', 'run_step', { step: 1 })] }, 1_000);
    return completion({ role: 'assistant', content: 'Enough.' }, 1_500);
  });
  const upstreamUrl = await listen(upstream.server);
  t.after(() => upstream.server.close());
  const gateway = await startGateway({ upstream: upstreamUrl, windowTokens: WINDOW, store: `sqlite:${join(directory, 'mixed.db')}`, port: 0 });
  t.after(() => gateway.close());
  const client = new OpenAI({ baseURL: gateway.url, apiKey: 'k', maxRetries: 0 });
  const tools: OpenAI.Chat.Completions.ChatCompletionTool[] = [{ type: 'function', function: { name: 'run_step', parameters: { type: 'object' } } }];
  const history: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [
    { role: 'user', content: TASK },
    { role: 'assistant', content: null, tool_calls: [{ id: 'call-0', type: 'function', function: { name: 'run_step', arguments: '{"step":0}' } }] },
    { role: 'tool', tool_call_id: 'call-0', content: outputs[5]! },
  ];
  const seen = await readChatStream(await client.chat.completions.create({ model: 'gpt-test', messages: history, tools, stream: true }));
  assert.deepEqual(seen.calls.map((c) => c.name), ['run_step']);
  assert.ok(seen.indexes.every((index) => index === 0), `the client's call is index 0: ${seen.indexes}`);
  assert.equal(seen.finish, 'tool_calls');
  assert.equal(seen.strata?.readToolOutputCalls, 1, 'the read was answered');
  history.push({ role: 'assistant', content: null, tool_calls: [{ id: seen.calls[0]!.id, type: 'function', function: { name: 'run_step', arguments: seen.calls[0]!.arguments } }] });
  history.push({ role: 'tool', tool_call_id: seen.calls[0]!.id, content: 'step 1: nothing found' });
  const answer = await client.chat.completions.create({ model: 'gpt-test', messages: history, tools });
  assert.equal(answer.choices[0]!.message.content, 'Enough.');
  const tail = upstream.requests[1]!.messages.slice(-4);
  assert.deepEqual(tail.map((m) => [m.role, m.tool_calls?.map((c: { id: string }) => c.id) ?? m.tool_call_id]), [['assistant', ['read-0']], ['tool', 'read-0'], ['assistant', ['call-1']], ['tool', 'call-1']]);
  assert.match(String(tail[1]!.content), /SETTING|\S/, 'the read answer is the stored output');
  checkRequests(rules, upstream.requests, ['openai', 'anthropic']);
});

test('anthropic streaming: signed thinking and redacted thinking go back upstream exactly as received, the read call is held, the client stream has no gaps', { timeout: 20_000 }, async (t) => {
  const outputs = recordedOutputs();
  const rules = await loadProviderRules();
  if (!outputs) return t.skip('../shared is absent');
  const thinking = { type: 'thinking', thinking: 'The output is masked; I should read its head.', signature: 'EqQBCkYIBxgCKkDsig+/==' };
  const redacted = { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP' };
  const message = (content: Array<Record<string, unknown>>, inputTokens: number) => ({ id: `msg_${inputTokens}`, type: 'message', role: 'assistant', model: 'claude-test', content, stop_reason: content.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn', stop_sequence: null, usage: { input_tokens: inputTokens, output_tokens: 9 } });
  const upstream = answeringUpstream('anthropic', (body, index) => {
    if (index === 0) return message([thinking, redacted, { type: 'tool_use', id: 'toolu_read', name: 'read_tool_output', input: { ref: maskedRef(body), lines: { start: 1, end: 2 } } }], 1_000);
    return message([{ type: 'text', text: 'Rounding: TimeDelta truncates the microseconds.' }], 2_000);
  });
  const upstreamUrl = await listen(upstream.server);
  t.after(() => upstream.server.close());
  const gateway = await startGateway({ upstream: upstreamUrl, windowTokens: WINDOW, store: 'memory:', port: 0 });
  t.after(() => gateway.close());
  const client = new Anthropic({ baseURL: gateway.url.replace(/\/v1$/, ''), apiKey: 'k', maxRetries: 0 });
  const history: Anthropic.MessageParam[] = [
    { role: 'user', content: TASK },
    { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_0', name: 'run_step', input: { step: 0 } }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_0', content: outputs[7]! }] },
  ];
  const final = await client.messages.stream({ model: 'claude-test', max_tokens: 512, messages: history, tools: [{ name: 'run_step', input_schema: { type: 'object' } }] }).finalMessage();
  assert.deepEqual(final.content.map((block) => block.type), ['thinking', 'redacted_thinking', 'text'], 'the read call held, the rest in order');
  assert.deepEqual(final.content[0], thinking);
  assert.deepEqual(final.content[1], redacted);
  assert.equal(final.stop_reason, 'end_turn');
  assert.equal(final.usage.output_tokens, 9);
  // The round as the model sent it: its thinking blocks, byte for byte, before the read call.
  const assistant = upstream.requests[1]!.messages.at(-2)!;
  assert.deepEqual(assistant.content.slice(0, 2), [thinking, redacted]);
  assert.equal(assistant.content[2].name, 'read_tool_output');
  checkRequests(rules, upstream.requests, ['anthropic']);
});

test('anthropic: a client call beside a read, answered and split; the client\'s next history continued by a second process over the same SQLite file is valid', { timeout: 20_000 }, async (t) => {
  const outputs = recordedOutputs();
  const rules = await loadProviderRules();
  if (!outputs) return t.skip('../shared is absent');
  const message = (content: Array<Record<string, unknown>>) => ({ id: 'msg_mixed', type: 'message', role: 'assistant', model: 'claude-test', content, stop_reason: content.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn', stop_sequence: null, usage: { input_tokens: 800, output_tokens: 9 } });
  const upstream = answeringUpstream('anthropic', (body, index) =>
    index === 0
      ? message([{ type: 'text', text: 'Reading, and running step 1.' }, { type: 'tool_use', id: 'toolu_read', name: 'read_tool_output', input: { ref: maskedRef(body), lines: { start: 1, end: 2 } } }, { type: 'tool_use', id: 'toolu_1', name: 'run_step', input: { step: 1 } }])
      : message([{ type: 'text', text: 'Done.' }]),
  );
  const upstreamUrl = await listen(upstream.server);
  t.after(() => upstream.server.close());
  const store = `sqlite:${join(directory, 'anthropic-mixed.db')}`;
  const first = await startGateway({ upstream: upstreamUrl, windowTokens: WINDOW, store, port: 0 });
  const tools: Anthropic.Tool[] = [{ name: 'run_step', input_schema: { type: 'object' } }];
  const history: Anthropic.MessageParam[] = [
    { role: 'user', content: TASK },
    { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_0', name: 'run_step', input: { step: 0 } }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_0', content: outputs[9]! }] },
  ];
  const shown = await new Anthropic({ baseURL: first.url.replace(/\/v1$/, ''), apiKey: 'k', maxRetries: 0 }).messages.create({ model: 'claude-test', max_tokens: 256, messages: history, tools });
  await first.close();
  assert.deepEqual(shown.content.map((block) => (block.type === 'tool_use' ? block.name : block.type)), ['text', 'run_step']);
  assert.equal(shown.stop_reason, 'tool_use');
  history.push({ role: 'assistant', content: shown.content }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'step 1: nothing' }] });
  const second = await startGateway({ upstream: upstreamUrl, windowTokens: WINDOW, store, port: 0 });
  t.after(() => second.close());
  const final = await new Anthropic({ baseURL: second.url.replace(/\/v1$/, ''), apiKey: 'k', maxRetries: 0 }).messages.create({ model: 'claude-test', max_tokens: 256, messages: history, tools });
  assert.equal(final.content[0]?.type === 'text' && final.content[0].text, 'Done.');
  const tail = upstream.requests[1]!.messages.slice(-4);
  const ids = tail.map((m) => (m.content as Array<Record<string, any>>).map((block) => block.id ?? block.tool_use_id ?? block.type));
  assert.deepEqual(ids, [['toolu_read'], ['toolu_read'], ['text', 'toolu_1'], ['toolu_1']], 'the read round, then the client\'s call and result');
  checkRequests(rules, upstream.requests, ['anthropic']);
});

test('an upstream error after the stream began ends the client stream with an error the client reads (the client may retry)', { timeout: 20_000 }, async (t) => {
  const outputs = recordedOutputs();
  if (!outputs) return t.skip('../shared is absent');
  const upstream = answeringUpstream('openai', (body, index) => {
    if (index === 0) return completion({ role: 'assistant', content: null, tool_calls: [call('read-0', 'read_tool_output', { ref: maskedRef(body), lines: { start: 1, end: 2 } })] }, 1_000);
    throw new Error('upstream overloaded');
  });
  const upstreamUrl = await listen(upstream.server);
  t.after(() => upstream.server.close());
  const gateway = await startGateway({ upstream: upstreamUrl, windowTokens: WINDOW, store: 'memory:', port: 0 });
  t.after(() => gateway.close());
  const client = new OpenAI({ baseURL: gateway.url, apiKey: 'k', maxRetries: 0 });
  const history: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [
    { role: 'user', content: TASK },
    { role: 'assistant', content: null, tool_calls: [{ id: 'call-0', type: 'function', function: { name: 'run_step', arguments: '{}' } }] },
    { role: 'tool', tool_call_id: 'call-0', content: outputs[2]! },
  ];
  const stream = await client.chat.completions.create({ model: 'gpt-test', messages: history, stream: true });
  await assert.rejects(readChatStream(stream), /overloaded|500/);
  assert.equal(upstream.requests.length, 2);
});
