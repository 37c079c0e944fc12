import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { CliIo } from '../cli-io.js';
import { CLI_COMMANDS } from '../cli-commands.js';

test('strata gateway prints its base URL first, binds 127.0.0.1, passes /v1/models through with STRATA_UPSTREAM_API_KEY, and stops on the signal', async (t) => {
  const directory = mkdtempSync(join(tmpdir(), 'strata-gateway-cli-'));
  t.after(() => rmSync(directory, { recursive: true, force: true }));
  const seen: Array<string | undefined> = [];
  const upstream = createServer((request, response) => {
    seen.push(request.headers.authorization);
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data: [{ id: 'gpt-test', object: 'model' }] }));
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  t.after(() => upstream.close());
  const address = upstream.address();
  const upstreamUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/v1`;

  const stop = new AbortController();
  let stdout = '';
  let printed: (line: string) => void = () => undefined;
  const firstLine = new Promise<string>((resolve) => (printed = resolve));
  const io: CliIo = {
    stdout: { write: (text: string) => ((stdout += text), stdout.includes('\n') && printed(stdout.slice(0, stdout.indexOf('\n')))) },
    stderr: { write: () => undefined },
    env: { STRATA_UPSTREAM_API_KEY: 'upstream-key' },
    cwd: directory,
    signal: stop.signal,
  };
  const exit = CLI_COMMANDS.gateway!.run(['--upstream', upstreamUrl, '--window', '24000', '--port', '0', '--store', `sqlite:${join(directory, 'g.db')}`], io);
  const url = await firstLine;
  assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/v1$/);
  const models = (await (await fetch(`${url}/models`, { headers: { authorization: 'Bearer client-key' } })).json()) as { data: Array<{ id: string }> };
  assert.deepEqual(models.data.map((model) => model.id), ['gpt-test']);
  assert.deepEqual(seen, ['Bearer upstream-key']);
  stop.abort();
  assert.equal(await exit, 0);
});

test('strata gateway refuses a missing --upstream or --window and an unknown provider, naming the option', async () => {
  const io: CliIo = { stdout: { write: () => undefined }, stderr: { write: () => undefined }, env: {}, cwd: tmpdir() };
  await assert.rejects(CLI_COMMANDS.gateway!.run(['--window', '1000'], io), /--upstream/);
  await assert.rejects(CLI_COMMANDS.gateway!.run(['--upstream', 'http://127.0.0.1:1/v1'], io), /--window/);
  await assert.rejects(CLI_COMMANDS.gateway!.run(['--upstream', 'http://127.0.0.1:1/v1', '--window', '1000', '--provider', 'gemini'], io), /--provider/);
  await assert.rejects(CLI_COMMANDS.gateway!.run(['--upstream', 'http://127.0.0.1:1/v1', '--window', 'many'], io), /--window must be a positive integer/);
});
