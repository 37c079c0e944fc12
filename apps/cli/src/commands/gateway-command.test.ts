import assert from 'node:assert/strict';
import { createServer, type RequestListener } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { closedPort, loadProviderRules, otlpAttribute, otlpReceiver, otlpSpans, readSharedData, withOtel } from '@strata/testing';
import type { CliIo } from '../cli-io.js';
import { CLI_COMMANDS } from '../cli-commands.js';
import { COMMAND_HELP } from '../cli-help.js';
import { GATEWAY_OPTIONS } from './gateway-command.js';

const GATEWAY_HELP = COMMAND_HELP.gateway;

/** A local upstream answering every request with `handle`, closed after the test; its base URL. */
async function startUpstream(t: TestContext, handle: RequestListener): Promise<string> {
  const upstream = createServer(handle);
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  t.after(() => upstream.close());
  const address = upstream.address();
  return `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/v1`;
}

/** `strata gateway` run with `args(directory)` in a fresh directory; resolves its first printed line (the base URL); `stop` ends it. */
function startGatewayCommand(t: TestContext, args: (directory: string) => string[], env: Record<string, string>): { firstLine: Promise<string>; exit: Promise<number>; stop: AbortController; stderr: () => string } {
  const directory = mkdtempSync(join(tmpdir(), 'strata-gateway-cli-'));
  t.after(() => rmSync(directory, { recursive: true, force: true }));
  const stop = new AbortController();
  // A test that failed before stopping it still ends the command.
  t.after(() => stop.abort());
  let stdout = '';
  let stderr = '';
  let printed: (line: string) => void = () => undefined;
  const firstLine = new Promise<string>((resolve) => (printed = resolve));
  const io: CliIo = {
    stdout: { write: (text: string) => ((stdout += text), stdout.includes('\n') && printed(stdout.slice(0, stdout.indexOf('\n')))) },
    stderr: { write: (text: string) => void (stderr += text) },
    env,
    cwd: directory,
    signal: stop.signal,
  };
  return { firstLine, exit: CLI_COMMANDS.gateway!.run(args(directory), io), stop, stderr: () => stderr };
}

test('strata gateway prints its base URL first, binds 127.0.0.1, passes /v1/models through with STRATA_UPSTREAM_API_KEY, and stops on the signal', async (t) => {
  const seen: Array<string | undefined> = [];
  const upstreamUrl = await startUpstream(t, (request, response) => {
    seen.push(request.headers.authorization);
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data: [{ id: 'gpt-test', object: 'model' }] }));
  });
  const { firstLine, exit, stop } = startGatewayCommand(t, (directory) => ['--upstream', upstreamUrl, '--window', '24000', '--port', '0', '--store', `sqlite:${join(directory, 'g.db')}`], { STRATA_UPSTREAM_API_KEY: 'upstream-key' });
  const url = await firstLine;
  assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/v1$/);
  const models = (await (await fetch(`${url}/models`, { headers: { authorization: 'Bearer client-key' } })).json()) as { data: Array<{ id: string }> };
  assert.deepEqual(models.data.map((model) => model.id), ['gpt-test']);
  assert.deepEqual(seen, ['Bearer upstream-key']);
  stop.abort();
  assert.equal(await exit, 0);
});

test('strata gateway refuses a missing --upstream, an unknown provider, a bad --window, and --host beyond 127.0.0.1 without a token, naming the option', async () => {
  const io: CliIo = { stdout: { write: () => undefined }, stderr: { write: () => undefined }, env: {}, cwd: tmpdir() };
  await assert.rejects(CLI_COMMANDS.gateway!.run(['--window', '1000'], io), /--upstream/);
  await assert.rejects(CLI_COMMANDS.gateway!.run(['--upstream', 'http://127.0.0.1:1/v1', '--window', '1000', '--provider', 'gemini'], io), /--provider/);
  await assert.rejects(CLI_COMMANDS.gateway!.run(['--upstream', 'http://127.0.0.1:1/v1', '--window', 'many'], io), /--window must be a positive integer/);
  await assert.rejects(CLI_COMMANDS.gateway!.run(['--upstream', 'http://127.0.0.1:1/v1', '--host', '0.0.0.0'], io), (error: unknown) => /--host 0\.0\.0\.0 binds beyond 127\.0\.0\.1.*--token or STRATA_GATEWAY_TOKEN/.test((error as Error).message));
  await assert.rejects(CLI_COMMANDS.gateway!.run(['--upstream', 'http://127.0.0.1:1/v1', '--token', 'short'], io), /at least 16 characters/);
  await assert.rejects(CLI_COMMANDS.gateway!.run(['--upstream', 'http://127.0.0.1:1/v1', '--max-messages', '0'], io), /--max-messages/);
});

test('strata gateway --provider anthropic sends a chat completions request to the upstream\'s /messages in Anthropic\'s API; without it, to /chat/completions', async (t) => {
  const seen: Array<{ path: string | undefined; body: Record<string, unknown> }> = [];
  const upstreamUrl = await startUpstream(t, async (request, response) => {
    let raw = '';
    for await (const chunk of request) raw += chunk;
    seen.push({ path: request.url, body: JSON.parse(raw) as Record<string, unknown> });
    const answer = request.url === '/v1/messages'
      ? { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-test', content: [{ type: 'text', text: 'done' }], stop_reason: 'end_turn', stop_sequence: null, usage: { input_tokens: 5, output_tokens: 1 } }
      : { id: 'c', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: 'done' }, finish_reason: 'stop' }], usage: { prompt_tokens: 5, completion_tokens: 1 } };
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
  });
  for (const provider of [['--provider', 'anthropic'], []]) {
    const { firstLine, exit, stop } = startGatewayCommand(t, () => ['--upstream', upstreamUrl, '--window', '24000', '--port', '0', '--store', 'memory:', ...provider], {});
    const url = await firstLine;
    const answered = await fetch(`${url}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer client-key' }, body: JSON.stringify({ model: 'm', messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'hello' }] }) });
    assert.equal(answered.status, 200);
    const completion = (await answered.json()) as { object: string; choices: Array<{ message: { content: string }; finish_reason: string }> };
    assert.deepEqual([completion.object, completion.choices[0]!.message.content, completion.choices[0]!.finish_reason], ['chat.completion', 'done', 'stop']);
    stop.abort();
    assert.equal(await exit, 0);
  }
  assert.deepEqual(seen.map(({ path }) => path), ['/v1/messages', '/v1/chat/completions']);
  assert.equal(seen[0]!.body.system, 'Be brief.');
  assert.equal(seen[0]!.body.max_tokens, 4_096);
  assert.equal(seen[1]!.body.max_tokens, undefined);
});

test('strata gateway --help documents every option it parses', () => {
  const documented = (GATEWAY_HELP.options ?? []).map(([flag]) => flag.split(' ')[0]);
  assert.deepEqual([...documented].sort(), Object.keys(GATEWAY_OPTIONS).map((name) => `--${name}`).sort());
  assert.ok(GATEWAY_HELP.notes!.some((note) => note.includes('/strata/view')) && GATEWAY_HELP.notes!.some((note) => note.includes('/health')));
});

test('strata gateway with STRATA_GATEWAY_TOKEN: unauthenticated requests are 401, traces go to the trace directory and the viewer at /strata/view shows them', async (t) => {
  const upstreamUrl = await startUpstream(t, async (request, response) => {
    for await (const _chunk of request);
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ id: 'c', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: 'done' }, finish_reason: 'stop' }], usage: { prompt_tokens: 5, completion_tokens: 1 } }));
  });
  const token = 'cli-gateway-token-000000';
  const { firstLine, exit, stop } = startGatewayCommand(t, () => ['--upstream', upstreamUrl, '--window', '24000', '--port', '0', '--store', 'memory:', '--trace-dir', 'traces'], { STRATA_GATEWAY_TOKEN: token, STRATA_UPSTREAM_API_KEY: 'upstream-key' });
  const url = await firstLine;
  const ask = (headers: Record<string, string>) => fetch(`${url}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hello' }] }) });
  assert.equal((await ask({})).status, 401);
  const answered = await ask({ authorization: `Bearer ${token}` });
  assert.equal(answered.status, 200);
  const contextId = answered.headers.get('x-strata-context')!;
  const root = url.replace(/\/v1$/, '');
  const page = await fetch(`${root}/strata/view?token=${token}`);
  assert.equal(page.status, 200);
  assert.match(page.headers.get('content-type')!, /text\/html/);
  const turns = (await (await fetch(`${root}/strata/view/turns.json`, { headers: { cookie: page.headers.get('set-cookie')!.split(';')[0]! } })).json()) as { turns: unknown[] };
  assert.equal(turns.turns.length, 1, 'the one upstream call is one turn in the viewer');
  assert.ok(JSON.stringify(turns).includes(contextId));
  stop.abort();
  assert.equal(await exit, 0);
});

/** A tool output well over a 6,000-token window: real recorded text where ../shared is present, else our own lines. */
function largeOutput(): string {
  const recorded = readSharedData('swe-agent/marshmallow-1867.function_calling_replace_from_source.traj');
  return (recorded ?? Array.from({ length: 2_000 }, (_, index) => `line ${index}: ${'measured '.repeat(6)}`).join('\n')).slice(0, 60_000);
}

/**
 * An OpenAI chat upstream that reads the first masked output it is shown through `read_tool_output` (one read), then
 * answers; its requests' bodies.
 */
async function readingUpstream(t: TestContext): Promise<{ url: string; bodies: Array<{ messages: Array<Record<string, unknown>> }> }> {
  const bodies: Array<{ messages: Array<Record<string, unknown>> }> = [];
  const url = await startUpstream(t, async (request, response) => {
    let raw = '';
    for await (const chunk of request) raw += chunk;
    const body = JSON.parse(raw) as { messages: Array<Record<string, unknown>> };
    bodies.push(body);
    const last = body.messages.at(-1)!;
    const masked = body.messages.find((message) => message.role === 'tool' && typeof message.content === 'string' && message.content.startsWith('[stored output ref="'));
    const message = last.tool_call_id !== 'read-1' && masked
      ? { role: 'assistant', content: null, tool_calls: [{ id: 'read-1', type: 'function', function: { name: 'read_tool_output', arguments: JSON.stringify({ ref: /ref="([^"]+)"/.exec(masked.content as string)![1], lines: { start: 1, end: 20 } }) } }] }
      : { role: 'assistant', content: 'The log says the build passed.' };
    const n = bodies.length;
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ id: `chatcmpl-${n}`, object: 'chat.completion', created: 1, model: 'upstream-model', choices: [{ index: 0, message, finish_reason: message.content === null ? 'tool_calls' : 'stop' }], usage: { prompt_tokens: 700 + n, completion_tokens: 9 } }));
  });
  return { url, bodies };
}

/** A client history whose one tool output is masked at a 6,000-token window. */
const maskedHistory = () => [
  { role: 'user', content: 'Read the build log and tell me whether it passed.' },
  { role: 'assistant', content: null, tool_calls: [{ id: 'call-1', type: 'function', function: { name: 'read_log', arguments: '{}' } }] },
  { role: 'tool', tool_call_id: 'call-1', content: largeOutput() },
];
const logTool = [{ type: 'function', function: { name: 'read_log', description: 'Reads the build log.', parameters: { type: 'object', properties: {} } } }];

test('strata gateway with a local OTLP receiver: one trace per client request, its root above a span per upstream call (the one after read_tool_output too), gen_ai attributes, the read as a tool span, the compaction event', async (t) => {
  const upstream = await readingUpstream(t);
  const receiver = await otlpReceiver();
  t.after(() => receiver.close());
  const otel = { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_SERVICE_NAME: 'strata-gateway-test' };
  const rules = await loadProviderRules();
  await withOtel(otel, async () => {
    const { firstLine, exit, stop, stderr } = startGatewayCommand(t, () => ['--upstream', upstream.url, '--window', '6000', '--port', '0', '--store', 'memory:', '--trace-dir', 'traces'], otel);
    const url = await firstLine;
    const ask = () => fetch(`${url}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer client-key' }, body: JSON.stringify({ model: 'gpt-test', messages: maskedHistory(), tools: logTool }) });
    const first = await ask();
    assert.equal(first.status, 200, await first.clone().text());
    assert.equal(first.headers.get('x-strata-upstream-calls'), '2', 'the gateway read the output itself, then called again');
    const answer = (await first.json()) as { choices: Array<{ message: { content: string } }> };
    assert.equal(answer.choices[0]!.message.content, 'The log says the build passed.');
    assert.equal((await ask()).status, 200);
    stop.abort();
    assert.equal(await exit, 0);
    assert.ok(!stderr().includes('telemetry:'), stderr());
  });
  for (const [index, body] of upstream.bodies.entries()) if (rules) assert.deepEqual(rules.violations(body.messages, 'openai'), [], `request ${index}`);
  assert.equal(otlpAttribute(receiver.exports[0]!.resourceSpans[0]!.resource.attributes, 'service.name'), 'strata-gateway-test');
  const spans = otlpSpans(receiver.exports);
  const roots = spans.filter((span) => !span.parentSpanId);
  assert.equal(roots.length, 2, 'one root per client request');
  assert.equal(new Set(spans.map((span) => span.traceId)).size, 2, 'one trace per client request');
  for (const root of roots) {
    assert.equal(otlpAttribute(root.attributes, 'gen_ai.operation.name'), 'invoke_agent');
    assert.equal(otlpAttribute(root.attributes, 'gen_ai.agent.name'), 'strata-gateway');
    assert.equal(otlpAttribute(root.attributes, 'strata.stop_reason'), 'completed');
    assert.match(String(otlpAttribute(root.attributes, 'gen_ai.conversation.id')), /.+/);
    const calls = spans.filter((span) => span.parentSpanId === root.spanId && otlpAttribute(span.attributes, 'gen_ai.operation.name') === 'chat');
    assert.equal(calls.length, 2, 'a span per upstream call, children of the request');
    assert.deepEqual(calls.map((span) => otlpAttribute(span.attributes, 'gen_ai.provider.name')), ['openai', 'openai']);
    assert.deepEqual(calls.map((span) => otlpAttribute(span.attributes, 'gen_ai.request.model')), ['gpt-test', 'gpt-test']);
    assert.deepEqual(calls.map((span) => otlpAttribute(span.attributes, 'gen_ai.response.model')), ['upstream-model', 'upstream-model']);
    assert.deepEqual(calls.map((span) => otlpAttribute(span.attributes, 'gen_ai.response.finish_reasons')), [['tool-calls'], ['stop']]);
    assert.deepEqual(calls.map((span) => otlpAttribute(span.attributes, 'gen_ai.usage.output_tokens')), [9, 9]);
    assert.ok(calls.every((span) => typeof otlpAttribute(span.attributes, 'gen_ai.usage.input_tokens') === 'number'));
    assert.equal(otlpAttribute(root.attributes, 'gen_ai.usage.input_tokens'), calls.reduce((sum, span) => sum + (otlpAttribute(span.attributes, 'gen_ai.usage.input_tokens') as number), 0));
    const reads = spans.filter((span) => span.parentSpanId === calls[0]!.spanId && otlpAttribute(span.attributes, 'gen_ai.operation.name') === 'execute_tool');
    assert.deepEqual(reads.map((span) => [otlpAttribute(span.attributes, 'gen_ai.tool.name'), otlpAttribute(span.attributes, 'gen_ai.tool.call.id')]), [['read_tool_output', 'read-1']]);
  }
  const compactions = spans.flatMap((span) => (span.events ?? []).filter((event) => event.name === 'gen_ai.conversation.compacted'));
  assert.ok(compactions.length > 0, 'masking the large output is a compaction event');
  assert.ok(!JSON.stringify(spans).includes('build passed'), 'no content on spans by default');
});

test('strata gateway with the OTLP collector down: every request still succeeds, and the failed export is said once', async (t) => {
  const upstream = await readingUpstream(t);
  const otel = { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `http://127.0.0.1:${await closedPort()}/v1/traces` };
  await withOtel(otel, async () => {
    const { firstLine, exit, stop, stderr } = startGatewayCommand(t, () => ['--upstream', upstream.url, '--window', '6000', '--port', '0', '--store', 'memory:', '--trace-dir', 'traces'], otel);
    const url = await firstLine;
    for (let request = 0; request < 3; request += 1) {
      const response = await fetch(`${url}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'gpt-test', messages: maskedHistory(), tools: logTool, stream: request === 2 }) });
      assert.equal(response.status, 200);
      assert.match(await response.text(), /build passed/);
    }
    stop.abort();
    assert.equal(await exit, 0);
    const warnings = stderr().split('\n').filter((line) => line.includes('telemetry:'));
    assert.equal(warnings.length, 1, stderr());
    assert.match(warnings[0]!, /could not export traces .*ECONNREFUSED/);
  });
});
