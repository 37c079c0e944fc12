import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, mkdir, readdir, realpath, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CliIo } from '../cli-io.js';
import { runCli } from '../run-cli.js';
import { closedPort, otlpAttribute, otlpReceiver, withOtel } from '@strata/testing';

type Chunk = Record<string, unknown>;
const chunk = (delta: Chunk, finish: string | null = null): Chunk => ({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'local', choices: [{ index: 0, delta, finish_reason: finish }] });
const toolCall = (id: string, name: string, args: Chunk): Chunk[] => [
  chunk({ role: 'assistant', content: null, tool_calls: [{ index: 0, id, type: 'function', function: { name, arguments: '' } }] }),
  chunk({ tool_calls: [{ index: 0, function: { arguments: JSON.stringify(args) } }] }),
  chunk({}, 'tool_calls'),
  { id: 'c', object: 'chat.completion.chunk', created: 1, model: 'local', choices: [], usage: { prompt_tokens: 300, completion_tokens: 9, total_tokens: 309 } },
];
const text = (words: string[]): Chunk[] => [chunk({ role: 'assistant', content: '' }), ...words.map((word) => chunk({ content: word })), chunk({}, 'stop')];

/** An OpenAI-compatible server on 127.0.0.1 answering the n-th request with the n-th script (SSE); `null` holds the stream open. */
async function localServer(scripts: Array<Chunk[] | null>) {
  const bodies: Array<{ messages: Array<Record<string, unknown>> }> = [];
  let onRequest: (() => void) | undefined;
  const server = createServer((request: IncomingMessage, response) => {
    let raw = '';
    request.on('data', (part) => (raw += part));
    request.on('end', () => {
      // Only chat completions: the window look-ups (`GET /v1/models`, `POST /api/show`) are not found, as on a server that has none.
      if (!request.url?.endsWith('/chat/completions')) return void response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
      bodies.push(JSON.parse(raw));
      onRequest?.();
      const script = scripts[bodies.length - 1];
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      if (script === null) return;
      for (const event of script ?? text(['no more script'])) response.write(`data: ${JSON.stringify(event)}\n\n`);
      response.end('data: [DONE]\n\n');
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return {
    model: `openai-compatible:http://127.0.0.1:${port}/v1#local-model`,
    bodies,
    nextRequest: () => new Promise<void>((done) => (onRequest = done)),
    close: () => new Promise<void>((done) => {
      server.closeAllConnections();
      server.close(() => done());
    }),
  };
}

async function strata(args: string[], cwd: string, options: { env?: Record<string, string>; signal?: AbortSignal } = {}) {
  let stdout = '';
  let stderr = '';
  const io: CliIo = { stdout: { write: (chunkText: string) => (stdout += chunkText) }, stderr: { write: (chunkText: string) => (stderr += chunkText) }, env: options.env ?? {}, cwd, signal: options.signal };
  const code = await runCli(args, io);
  return { code, stdout, stderr };
}

async function workspace() {
  const root = await mkdtemp(join(tmpdir(), 'strata-run-'));
  await mkdir(join(root, 'work'));
  await writeFile(join(root, 'work', 'notes.txt'), 'The answer is 42.\n');
  await writeFile(join(root, 'outside.txt'), 'private');
  return root;
}

test('a live run streams a tool call then an answer; file tools stay inside the work directory; traces are written', async () => {
  const root = await workspace();
  const server = await localServer([toolCall('call_1', 'read_file', { path: 'notes.txt' }), toolCall('call_2', 'read_file', { path: '../outside.txt' }), text(['The notes ', 'say 42.'])]);
  try {
    const { code, stdout, stderr } = await strata(['run', 'What do the notes say?', '--model', server.model, '--workdir', 'work', '--trace-dir', 'traces'], root);
    assert.equal(code, 0, stderr);
    assert.match(stdout, /The notes say 42\./);
    assert.equal(server.bodies.length, 3);
    const results = server.bodies[2]!.messages.filter((message) => message.role === 'tool').map((message) => String(message.content));
    assert.equal(results[0], 'The answer is 42.\n');
    assert.match(results[1]!, /outside the work directory/);
    assert.ok(!results.join('').includes('private'));
    const tools = (server.bodies[0] as unknown as { tools: Array<{ function: { name: string } }> }).tools.map((tool) => tool.function.name);
    assert.deepEqual(['list_files', 'read_file', 'search_files', 'write_file'].filter((name) => !tools.includes(name)), []);
    const [contextDirectory] = await readdir(join(root, 'traces'));
    assert.deepEqual((await readdir(join(root, 'traces', contextDirectory!))).sort(), ['turn-0001.json', 'turn-0002.json', 'turn-0003.json']);
  } finally {
    await server.close();
  }
});

test('a work directory given as a symbolic link is resolved once: the tools read inside it and the prompt names the real directory', async () => {
  const root = await workspace();
  await symlink(join(root, 'work'), join(root, 'work-link'));
  const server = await localServer([toolCall('call_1', 'read_file', { path: 'notes.txt' }), text(['42.'])]);
  try {
    const { code, stderr } = await strata(['run', 'Read the notes.', '--model', server.model, '--workdir', 'work-link', '--trace-dir', 'traces'], root);
    assert.equal(code, 0, stderr);
    const results = server.bodies[1]!.messages.filter((message) => message.role === 'tool').map((message) => String(message.content));
    assert.deepEqual(results, ['The answer is 42.\n']);
    const system = server.bodies[0]!.messages.filter((message) => message.role === 'system').map((message) => String(message.content)).join('\n');
    assert.ok(system.includes(`working in the directory ${await realpath(join(root, 'work'))} `), system);
  } finally {
    await server.close();
  }
});

test('Ctrl-C cancels a run cleanly: it ends cancelled (exit 130) and the trace of the cancelled turn is still written', async () => {
  const root = await workspace();
  const server = await localServer([null]);
  try {
    const controller = new AbortController();
    const started = server.nextRequest();
    const running = strata(['run', 'Wait.', '--model', server.model, '--workdir', 'work', '--trace-dir', 'traces'], root, { signal: controller.signal });
    await started;
    controller.abort(new Error('interrupted (Ctrl-C)'));
    const { code, stderr } = await running;
    assert.equal(code, 130, stderr);
    assert.match(stderr, /^\[run\] cancelled after 1 turns;/m);
    assert.doesNotMatch(stderr, /interrupted|failed|stopped \(/);
    const [contextDirectory] = await readdir(join(root, 'traces'));
    assert.deepEqual(await readdir(join(root, 'traces', contextDirectory!)), ['turn-0001.json']);
  } finally {
    await server.close();
  }
});

test('no key names the variable to set; a missing work directory or MCP file is a one-line error', async () => {
  const root = await workspace();
  const cases: Array<[string[], RegExp]> = [
    [['run', 'hi', '--model', 'openai:gpt-4.1', '--workdir', 'work'], /^strata: OPENAI_API_KEY is not set/],
    [['run', 'hi', '--model', 'anthropic:claude-sonnet-4-5', '--workdir', 'work'], /^strata: ANTHROPIC_API_KEY is not set/],
    [['run', 'hi', '--model', 'openai:gpt-4.1', '--workdir', 'nowhere'], /^strata: --workdir .*nowhere: not a directory$/],
    [['run', 'hi', '--model', 'openai-compatible:http://127.0.0.1:9/v1#m', '--workdir', 'work', '--mcp', 'missing.json'], /^strata: --mcp missing\.json: no such file$/],
    [['run', '--model', 'openai:gpt-4.1'], /^strata run: name the task/],
  ];
  for (const [args, pattern] of cases) {
    const { code, stderr } = await strata(args, root);
    assert.equal(code, 2, `${args.join(' ')}: ${stderr}`);
    assert.equal(stderr.trimEnd().split('\n').length, 1, stderr);
    assert.match(stderr.trimEnd(), pattern);
  }
});

test('a run with the OTLP collector down exits 0 with its answer and its trace, and says so once', async () => {
  const root = await workspace();
  const server = await localServer([toolCall('call_1', 'read_file', { path: 'notes.txt' }), toolCall('call_2', 'list_files', {}), text(['The notes ', 'say 42.'])]);
  const otel = { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `http://127.0.0.1:${await closedPort()}/v1/traces` };
  try {
    const { code, stdout, stderr } = await withOtel(otel, () => strata(['run', 'What do the notes say?', '--model', server.model, '--workdir', 'work', '--trace-dir', 'traces'], root, { env: otel }));
    assert.equal(code, 0, stderr);
    assert.match(stdout, /The notes say 42\./);
    const warnings = stderr.split('\n').filter((line) => line.includes('telemetry:'));
    assert.equal(warnings.length, 1, stderr);
    assert.match(warnings[0]!, /could not export traces .*ECONNREFUSED/);
    assert.match(stderr, /\[run\] completed after 3 turns/);
    const [contextDirectory] = await readdir(join(root, 'traces'));
    assert.equal((await readdir(join(root, 'traces', contextDirectory!))).length, 3);
  } finally {
    await server.close();
  }
});

test('with a local OTLP receiver: one trace per run, turns below the root, tools below turns, OTEL_SERVICE_NAME, gen_ai.response.* and the compaction event', async () => {
  const root = await workspace();
  const long = Array.from({ length: 400 }, (_, index) => `measurement ${index}: ${'x'.repeat(40)}`).join('\n');
  await writeFile(join(root, 'work', 'long.txt'), long);
  const server = await localServer([
    toolCall('call_1', 'read_file', { path: 'long.txt' }),
    toolCall('call_2', 'read_file', { path: 'long.txt' }),
    toolCall('call_3', 'read_file', { path: 'notes.txt' }),
    text(['The notes ', 'say 42.']),
  ]);
  const receiver = await otlpReceiver();
  const otel = { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_SERVICE_NAME: 'strata-acceptance', OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=test' };
  try {
    const { code, stderr } = await withOtel(otel, () =>
      strata(['run', 'What do the notes say?', '--model', server.model, '--workdir', 'work', '--trace-dir', 'traces'], root, { env: { ...otel, STRATA_CONTEXT_WINDOW_TOKENS: '6000' } }),
    );
    assert.equal(code, 0, stderr);
    assert.ok(!stderr.includes('telemetry:'), stderr);
    const resources = receiver.exports.flatMap((entry) => entry.resourceSpans);
    assert.ok(resources.length > 0, 'the receiver got the export');
    for (const resource of resources) {
      assert.equal(otlpAttribute(resource.resource.attributes, 'service.name'), 'strata-acceptance');
      assert.equal(otlpAttribute(resource.resource.attributes, 'deployment.environment'), 'test');
    }
    const spans = resources.flatMap((resource) => resource.scopeSpans.flatMap((scope) => scope.spans));
    assert.equal(new Set(spans.map((span) => span.traceId)).size, 1, 'one trace per run');
    const roots = spans.filter((span) => !span.parentSpanId);
    assert.deepEqual(roots.map((span) => otlpAttribute(span.attributes, 'gen_ai.operation.name')), ['invoke_agent']);
    const turns = spans.filter((span) => otlpAttribute(span.attributes, 'gen_ai.operation.name') === 'chat');
    assert.equal(turns.length, 4);
    assert.ok(turns.every((turn) => turn.parentSpanId === roots[0]!.spanId), 'turns are children of the run');
    const tools = spans.filter((span) => otlpAttribute(span.attributes, 'gen_ai.operation.name') === 'execute_tool');
    assert.deepEqual(tools.map((span) => otlpAttribute(span.attributes, 'gen_ai.tool.call.id')).sort(), ['call_1', 'call_2', 'call_3']);
    assert.ok(tools.every((tool) => turns.some((turn) => turn.spanId === tool.parentSpanId)), 'tools are grandchildren');
    for (const turn of turns) {
      assert.equal(otlpAttribute(turn.attributes, 'gen_ai.response.model'), 'local');
      assert.equal(otlpAttribute(turn.attributes, 'gen_ai.response.id'), 'c');
    }
    // The script's tool-call answers report usage (its last answer does not).
    assert.deepEqual(turns.slice(0, 3).map((turn) => otlpAttribute(turn.attributes, 'gen_ai.usage.input_tokens')), [300, 300, 300]);
    assert.equal(otlpAttribute(roots[0]!.attributes, 'gen_ai.usage.input_tokens'), 900);
    assert.deepEqual(turns.map((turn) => otlpAttribute(turn.attributes, 'gen_ai.response.finish_reasons')), [['tool-calls'], ['tool-calls'], ['tool-calls'], ['stop']]);
    const compactions = turns.flatMap((turn) => (turn.events ?? []).filter((event) => event.name === 'gen_ai.conversation.compacted'));
    assert.ok(compactions.length > 0, 'the small window compacted a turn');
    for (const event of compactions) {
      const before = otlpAttribute(event.attributes, 'strata.compaction.tokens_before') as number;
      const after = otlpAttribute(event.attributes, 'strata.compaction.tokens_after') as number;
      assert.ok(typeof before === 'number' && typeof after === 'number' && after < before, JSON.stringify(event));
    }
  } finally {
    await receiver.close();
    await server.close();
  }
});

test('OTEL_TRACES_EXPORTER=none sends nothing; without --trace-dir the traces go to the per-user state directory, not the work directory', async () => {
  const root = await workspace();
  const server = await localServer([toolCall('call_1', 'list_files', {}), text(['Done.'])]);
  const receiver = await otlpReceiver();
  const otel = { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_TRACES_EXPORTER: 'none' };
  try {
    const { code, stderr } = await withOtel(otel, () => strata(['run', 'List.', '--model', server.model, '--workdir', '.'], join(root, 'work'), { env: { ...otel, XDG_STATE_HOME: join(root, 'state') } }));
    assert.equal(code, 0, stderr);
    assert.equal(receiver.exports.length, 0);
    assert.deepEqual((await readdir(join(root, 'work'))).sort(), ['notes.txt'], 'nothing written in the work directory');
    const [contextDirectory] = await readdir(join(root, 'state', 'strata', 'runs'));
    assert.equal((await readdir(join(root, 'state', 'strata', 'runs', contextDirectory!))).length, 2);
    assert.ok(stderr.includes(join(root, 'state', 'strata', 'runs')), stderr);
  } finally {
    await receiver.close();
    await server.close();
  }
});

test('a collector that never answers: the run still exits 0 with its answer, bounded by the SDK\'s own OTEL_EXPORTER_OTLP_TIMEOUT, with one warning', async () => {
  const root = await workspace();
  const server = await localServer([toolCall('call_1', 'read_file', { path: 'notes.txt' }), text(['The notes ', 'say 42.'])]);
  const receiver = await otlpReceiver({ hang: true });
  const otel = { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_EXPORTER_OTLP_TIMEOUT: '300' };
  try {
    const { code, stdout, stderr } = await withOtel(otel, () => strata(['run', 'What do the notes say?', '--model', server.model, '--workdir', 'work', '--trace-dir', 'traces'], root, { env: otel }));
    assert.equal(code, 0, stderr);
    assert.match(stdout, /The notes say 42\./);
    assert.ok(receiver.exports.length > 0, 'the export reached the collector');
    const warnings = stderr.split('\n').filter((line) => line.includes('telemetry:'));
    assert.equal(warnings.length, 1, stderr);
  } finally {
    await receiver.close();
    await server.close();
  }
});

test('the text of different turns is streamed on separate lines, never glued together', async () => {
  const root = await workspace();
  const server = await localServer([[chunk({ role: 'assistant', content: 'Let me read the notes.' }), ...toolCall('call_1', 'read_file', { path: 'notes.txt' })], toolCall('call_2', 'read_file', { path: 'notes.txt' }), text(['The notes ', 'say 42.'])]);
  try {
    const { code, stdout, stderr } = await strata(['run', 'What do the notes say?', '--model', server.model, '--workdir', 'work', '--trace-dir', 'traces'], root);
    assert.equal(code, 0, stderr);
    // Turn 1 wrote text and a call, turn 2 only a call, turn 3 the answer: one line each for the turns that spoke.
    assert.equal(stdout, 'Let me read the notes.\nThe notes say 42.\n');
  } finally {
    await server.close();
  }
});

test('a provider that refuses the key (401 "Invalid API key") is asked once and the error names the variable', async () => {
  const root = await workspace();
  let chatRequests = 0;
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      if (request.url?.endsWith('/chat/completions')) chatRequests += 1;
      response.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'Invalid API key', type: 'api_error', code: null } }));
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  try {
    const env = { OPENAI_API_KEY: 'sk-wrong', OPENAI_BASE_URL: `http://127.0.0.1:${port}/v1` };
    const { code, stderr } = await strata(['run', 'hi', '--model', 'openai:gpt-4.1', '--workdir', 'work', '--trace-dir', 'traces'], root, { env });
    assert.equal(code, 1, stderr);
    assert.equal(chatRequests, 1, 'never retried');
    assert.match(stderr, /^strata run: stopped \(model-error\): openai\.chat: authentication failed \(HTTP 401\), the key was refused: Invalid API key; check OPENAI_API_KEY$/m);
    assert.doesNotMatch(stderr, /transient|retry/i);
  } finally {
    server.closeAllConnections();
    await new Promise<void>((done) => server.close(() => done()));
  }
});

test('SIGINT to the strata process (Ctrl-C) ends a live run as cancelled: exit 130, the trace written', async () => {
  const root = await workspace();
  const server = await localServer([null]);
  try {
    const started = server.nextRequest();
    const child = spawn(process.execPath, [fileURLToPath(new URL('../main.js', import.meta.url)), 'run', 'Wait.', '--model', server.model, '--workdir', 'work', '--trace-dir', 'traces'], { cwd: root, env: { PATH: process.env.PATH ?? '', HOME: root }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (part: Buffer) => (stderr += part.toString('utf8')));
    const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
    await started;
    child.kill('SIGINT');
    const [code, signal] = await exited;
    assert.equal(signal, null, 'the process handled the signal itself');
    assert.equal(code, 130, stderr);
    assert.match(stderr, /^\[run\] cancelled after 1 turns;/m);
    const [contextDirectory] = await readdir(join(root, 'traces'));
    assert.deepEqual(await readdir(join(root, 'traces', contextDirectory!)), ['turn-0001.json']);
  } finally {
    await server.close();
  }
});
