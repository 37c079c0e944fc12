import assert from 'node:assert/strict';
import { createServer, type RequestListener } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
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
function startGatewayCommand(t: TestContext, args: (directory: string) => string[], env: Record<string, string>): { firstLine: Promise<string>; exit: Promise<number>; stop: AbortController } {
  const directory = mkdtempSync(join(tmpdir(), 'strata-gateway-cli-'));
  t.after(() => rmSync(directory, { recursive: true, force: true }));
  const stop = new AbortController();
  let stdout = '';
  let printed: (line: string) => void = () => undefined;
  const firstLine = new Promise<string>((resolve) => (printed = resolve));
  const io: CliIo = {
    stdout: { write: (text: string) => ((stdout += text), stdout.includes('\n') && printed(stdout.slice(0, stdout.indexOf('\n')))) },
    stderr: { write: () => undefined },
    env,
    cwd: directory,
    signal: stop.signal,
  };
  return { firstLine, exit: CLI_COMMANDS.gateway!.run(args(directory), io), stop };
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
