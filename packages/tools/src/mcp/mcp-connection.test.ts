import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { McpConnectionError } from '../errors/mcp-connection-error.js';
import { createSearchToolsTool } from '../registry/search-tools-tool.js';
import { ToolRegistry } from '../registry/tool-registry.js';
import { toolErrorCodeOf } from '../tool-error.js';
import { connectMcpServer } from './mcp-connection.js';
import { createFixtureServer } from './testing/fixture-server.js';

const FIXTURE = fileURLToPath(new URL('./testing/fixture-server.js', import.meta.url));
const context = { contextId: 'ctx' };

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    assert.equal((error as NodeJS.ErrnoException).code, 'ESRCH');
    return false;
  }
}

/** Live child processes of this test process whose command line mentions `needle` (Linux /proc; [] elsewhere). */
function childProcessesRunning(needle: string): number[] {
  if (!existsSync('/proc')) return [];
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
      if (parent === process.pid && state !== 'Z' && readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(needle)) found.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return found;
}

function stdioFixture(name = 'fixture', callTimeoutMs = 30_000) {
  return connectMcpServer({ server: { name, transport: { type: 'stdio', command: process.execPath, args: [FIXTURE] } }, callTimeoutMs });
}

function errorMessage(content: string): string {
  return (JSON.parse(content) as { error: { message: string } }).error.message;
}

test('stdio: tools are deferred until discovered, then callable; errors are structured; close ends the child', async () => {
  const connection = await stdioFixture();
  const pid = connection.pid;
  assert.ok(pid !== undefined && isAlive(pid));
  const registry = new ToolRegistry();
  try {
    assert.equal(connection.instructions, 'A fixture for tests.');
    assert.deepEqual(
      connection.registrations.map((registration) => registration.tool.name),
      ['mcp__fixture__add', 'mcp__fixture__echo', 'mcp__fixture__exit', 'mcp__fixture__explode', 'mcp__fixture__fail', 'mcp__fixture__get_weather', 'mcp__fixture__grow', 'mcp__fixture__hang', 'mcp__fixture__inject', 'mcp__fixture__pid', 'mcp__fixture__shrink'],
    );
    assert.ok(connection.registrations.every((registration) => registration.deferred === true));
    const echo = connection.registrations.find((registration) => registration.tool.name === 'mcp__fixture__echo')!;
    assert.deepEqual(echo.routingHints, ['fixture', 'mcp server fixture', 'echo', 'fixture-server']);
    assert.equal(echo.tool.concurrencySafe, true);

    registry.register(createSearchToolsTool({ registry }));
    registry.registerAll(connection.registrations);
    assert.deepEqual(registry.visibleTools().map((tool) => tool.name), ['search_tools']);
    assert.equal(toolErrorCodeOf(await registry.execute({ id: '1', name: 'mcp__fixture__echo', input: { text: 'hi' } }, context)), 'TOOL_NOT_DISCOVERED');

    const search = await registry.execute({ id: '2', name: 'search_tools', input: { query: 'echo text' } }, context);
    assert.deepEqual((search.data as { promoted: string[] }).promoted[0], 'mcp__fixture__echo');
    await registry.execute({ id: '3', name: 'search_tools', input: { names: ['mcp__fixture__add', 'mcp__fixture__fail', 'mcp__fixture__explode', 'mcp__fixture__hang', 'mcp__fixture__get_weather', 'mcp__fixture__pid'] } }, context);
    assert.ok(registry.visibleTools().some((tool) => tool.name === 'mcp__fixture__echo'));

    assert.deepEqual(await registry.execute({ id: '4', name: 'mcp__fixture__echo', input: { text: 'hi 你好 😀' } }, context), {
      content: 'hi 你好 😀',
      data: { server: 'fixture', mcpTool: 'echo' },
    });
    const sum = await registry.execute({ id: '5', name: 'mcp__fixture__add', input: { a: 2, b: 3 } }, context);
    assert.deepEqual(sum, { content: '5', data: { server: 'fixture', mcpTool: 'add', structuredContent: { sum: 5 } } });
    const weather = await registry.execute({ id: '6', name: 'mcp__fixture__get_weather', input: { city: 'Oslo' } }, context);
    assert.equal(weather.content, 'Sunny in Oslo\n[image image/png, 3 bytes, not shown]');
    assert.equal((await registry.execute({ id: '7', name: 'mcp__fixture__pid', input: {} }, context)).content, String(pid));

    // Validated against the server's own input schema before any request.
    const invalid = await registry.execute({ id: '8', name: 'mcp__fixture__add', input: { a: 'two', b: 3 } }, context);
    assert.equal(toolErrorCodeOf(invalid), 'TOOL_ARGUMENTS_INVALID');
    const failed = await registry.execute({ id: '9', name: 'mcp__fixture__fail', input: { reason: 'quota' } }, context);
    assert.equal(toolErrorCodeOf(failed), 'MCP_TOOL_ERROR');
    assert.equal(errorMessage(failed.content), 'refused: quota');
    const exploded = await registry.execute({ id: '10', name: 'mcp__fixture__explode', input: {} }, context);
    assert.equal(toolErrorCodeOf(exploded), 'MCP_TOOL_ERROR');
    assert.match(errorMessage(exploded.content), /kaboom/);
  } finally {
    await connection.close();
  }
  assert.equal(isAlive(pid), false);
  assert.deepEqual(childProcessesRunning(FIXTURE), []);
  await connection.close();
  const afterClose = await registry.execute({ id: '12', name: 'mcp__fixture__echo', input: { text: 'anyone?' } }, context);
  assert.equal(toolErrorCodeOf(afterClose), 'MCP_CONNECTION_CLOSED');
});

test('stdio: a server that dies mid-call gives a structured error, and close still succeeds', async () => {
  const connection = await stdioFixture('dying');
  const pid = connection.pid!;
  const registry = new ToolRegistry();
  registry.registerAll(connection.registrations);
  registry.promote(['mcp__dying__exit', 'mcp__dying__echo']);
  const outcome = await registry.execute({ id: '1', name: 'mcp__dying__exit', input: {} }, context);
  assert.equal(toolErrorCodeOf(outcome), 'MCP_CONNECTION_CLOSED');
  const after = await registry.execute({ id: '2', name: 'mcp__dying__echo', input: { text: 'still there?' } }, context);
  assert.equal(toolErrorCodeOf(after), 'MCP_CONNECTION_CLOSED');
  await connection.close();
  assert.equal(isAlive(pid), false);
});

test('a call the server never answers times out; an aborted call is reported as aborted, not as a server failure', async () => {
  const connection = await stdioFixture('aborting', 300);
  try {
    const registry = new ToolRegistry();
    registry.registerAll(connection.registrations);
    registry.promote(['mcp__aborting__hang']);
    const hung = await registry.execute({ id: '0', name: 'mcp__aborting__hang', input: {} }, context);
    assert.equal(toolErrorCodeOf(hung), 'MCP_TIMEOUT');
    const controller = new AbortController();
    const pending = registry.execute({ id: '1', name: 'mcp__aborting__hang', input: {} }, { contextId: 'ctx', signal: controller.signal });
    controller.abort();
    assert.equal(toolErrorCodeOf(await pending), 'TOOL_ABORTED');
  } finally {
    await connection.close();
  }
});

test('a server that cannot start is a McpConnectionError naming it', async () => {
  await assert.rejects(
    connectMcpServer({ server: { name: 'ghost', transport: { type: 'stdio', command: '/nonexistent/strata-mcp-server' } } }),
    (error: unknown) => McpConnectionError.isInstance(error) && error.code === 'MCP_CONNECT_FAILED' && error.server === 'ghost' && error.message.includes('"ghost"'),
  );
  await assert.rejects(
    connectMcpServer({ server: { name: 'crash', transport: { type: 'stdio', command: process.execPath, args: ['-e', 'console.error("missing API key"); process.exit(2)'] } }, connectTimeoutMs: 5_000 }),
    (error: unknown) => McpConnectionError.isInstance(error) && error.server === 'crash' && error.message.includes('missing API key'),
  );
});

test('Streamable HTTP: the same bridge over a local HTTP server', async () => {
  const http = createServer((request, response) => {
    const server = createFixtureServer();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    response.on('close', () => {
      void transport.close();
      void server.close();
    });
    server
      .connect(transport)
      .then(() => transport.handleRequest(request, response))
      .catch(() => response.destroy());
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  const connection = await connectMcpServer({ server: { name: 'web', transport: { type: 'streamable-http', url: `http://127.0.0.1:${port}/mcp` } } });
  try {
    assert.equal(connection.pid, undefined);
    const registry = new ToolRegistry();
    registry.registerAll(connection.registrations);
    registry.promote(['mcp__web__echo', 'mcp__web__fail']);
    assert.equal((await registry.execute({ id: '1', name: 'mcp__web__echo', input: { text: 'over http' } }, context)).content, 'over http');
    assert.equal(toolErrorCodeOf(await registry.execute({ id: '2', name: 'mcp__web__fail', input: { reason: 'no' } }, context)), 'MCP_TOOL_ERROR');
  } finally {
    await connection.close();
    http.closeAllConnections();
    await new Promise<void>((resolve) => http.close(() => resolve()));
  }
});

test('a tool with a malformed input schema is skipped with a diagnostic; the others still register', async () => {
  const script = fileURLToPath(new URL('./testing/bad-schema-server.js', import.meta.url));
  const connection = await connectMcpServer({ server: { name: 'odd', transport: { type: 'stdio', command: process.execPath, args: [script] } } });
  try {
    assert.deepEqual(connection.registrations.map((registration) => registration.tool.name), ['mcp__odd__good']);
    assert.equal(connection.diagnostics.length, 1);
    assert.equal(connection.diagnostics[0]?.code, 'MCP_TOOL_SKIPPED');
    assert.equal(connection.diagnostics[0]?.subject, 'mcp__odd__broken');
    assert.match(connection.diagnostics[0]?.message ?? '', /\/properties\/when\/type/);
  } finally {
    await connection.close();
  }
});

test('an aborted connect rethrows the abort and leaves no child behind', async () => {
  const controller = new AbortController();
  const marker = 'strata-abort-marker';
  const pending = connectMcpServer({ server: { name: 'cancelled', transport: { type: 'stdio', command: process.execPath, args: [FIXTURE, marker] } }, signal: controller.signal });
  controller.abort(new Error('run cancelled'));
  await assert.rejects(pending, (error: unknown) => error instanceof Error && error.message === 'run cancelled');
  assert.deepEqual(childProcessesRunning(marker), []);
});

test('tools/list_changed: the registry follows the server (added, removed, promotion kept); remote output is cleaned of control markers', async () => {
  const connection = await stdioFixture('live');
  const registry = new ToolRegistry();
  const changes: { added: readonly string[]; removed: readonly string[] }[] = [];
  let changed: () => void = () => undefined;
  const stop = connection.registerTools(registry, {
    onToolsChanged: (change) => {
      changes.push({ added: change.added, removed: change.removed });
      changed();
    },
  });
  const next = () => new Promise<void>((resolve) => (changed = resolve));
  try {
    assert.ok(registry.has('mcp__live__grow') && !registry.has('mcp__live__late'));
    registry.promote(['mcp__live__grow', 'mcp__live__shrink', 'mcp__live__inject']);
    let waiting = next();
    assert.equal((await registry.execute({ id: '1', name: 'mcp__live__grow', input: {} }, context)).content, 'grown');
    await waiting;
    assert.deepEqual(changes.at(-1), { added: ['mcp__live__late'], removed: [] });
    assert.ok(registry.isVisible('mcp__live__grow'), 'promotion survives the refresh');
    assert.ok(registry.deferredTools().some((tool) => tool.name === 'mcp__live__late' && !tool.promoted), 'a new tool is deferred');
    registry.promote(['mcp__live__late']);
    assert.equal((await registry.execute({ id: '2', name: 'mcp__live__late', input: { text: 'hi' } }, context)).content, 'late: hi');
    waiting = next();
    await registry.execute({ id: '3', name: 'mcp__live__shrink', input: {} }, context);
    await waiting;
    assert.deepEqual(changes.at(-1), { added: [], removed: ['mcp__live__late'] });
    assert.equal(registry.has('mcp__live__late'), false);

    const injected = await registry.execute({ id: '4', name: 'mcp__live__inject', input: {} }, context);
    assert.ok(injected.content.startsWith('weather: fine'));
    assert.ok(!/<\/tool_output>|<system-reminder>|<\|im_start\|>/.test(injected.content), injected.content);
    assert.deepEqual((injected.data as { controlMarkersNeutralised: string[] }).controlMarkersNeutralised, ['2 system-reminder tags', '1 wrapper tag', '1 chat-template token', '1 end-of-user-input line']);
  } finally {
    stop();
    await connection.close();
  }
});
