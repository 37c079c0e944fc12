import { setTimeout } from 'node:timers/promises';
import type { ContextDiagnostic, JsonValue, ToolDefinition } from '@strata/context';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { McpConnectionError } from '../errors/mcp-connection-error.js';
import { ToolDefinitionError } from '../errors/tool-definition-error.js';
import { normalizeParameterSchema } from '../registry/parameter-schema.js';
import type { ToolRegistration, ToolRegistry } from '../registry/tool-registry.js';
import { describeThrown } from '../tool-error.js';
import { type McpCallResult, type McpToolIdentity, mcpFailureOutcome, mcpResultOutcome } from './mcp-result.js';
import { mcpToolName } from './mcp-tool-name.js';

export type McpTransportConfig =
  | {
      readonly type: 'stdio';
      readonly command: string;
      readonly args?: readonly string[];
      /** Added to the SDK's safe default environment. */
      readonly env?: Readonly<Record<string, string>>;
      readonly cwd?: string;
    }
  | {
      readonly type: 'streamable-http';
      readonly url: string | URL;
      readonly headers?: Readonly<Record<string, string>>;
    };

export interface McpServerConfig {
  /** Names the server in tool names (`mcp__<name>__<tool>`), hints and errors. */
  readonly name: string;
  readonly transport: McpTransportConfig;
}

export interface ConnectMcpServerOptions {
  readonly server: McpServerConfig;
  /** Per tool call. Default 60,000 ms. */
  readonly callTimeoutMs?: number;
  /** Connecting and listing tools. Default 30,000 ms. */
  readonly connectTimeoutMs?: number;
  readonly signal?: AbortSignal;
}

/** One connected MCP server and its tools, ready to register as deferred tools. */
export interface McpServerConnection {
  readonly server: string;
  /** Deferred registrations with routing hints (server name, server title, the tool's own name and title). */
  readonly registrations: readonly ToolRegistration[];
  /** Tools skipped (e.g. a malformed input schema), code `MCP_TOOL_SKIPPED`. */
  readonly diagnostics: readonly ContextDiagnostic[];
  /** The server's own instructions, if it sent any. */
  readonly instructions: string | undefined;
  /** The child process id of a stdio server; undefined for HTTP. */
  readonly pid: number | undefined;
  /**
   * Registers the server's tools (deferred) in a registry and keeps them
   * current: on the server's `tools/list_changed` notification the tools are
   * listed again and the registry updated (new ones added, gone ones
   * removed, changed ones replaced, promotion kept), so the change reaches
   * the model from its next call. `onToolsChanged` hears each refresh.
   * Returns a function that stops following the server (the tools stay).
   */
  registerTools(registry: ToolRegistry, options?: { onToolsChanged?: (change: McpToolsChange) => void }): () => void;
  /** Closes the session and, for stdio, ends the child process (stdin closed, then SIGTERM, then SIGKILL). Idempotent. */
  close(): Promise<void>;
}

/** One refresh after a `tools/list_changed` notification. */
export interface McpToolsChange {
  readonly server: string;
  readonly added: readonly string[];
  readonly removed: readonly string[];
  /** Tools skipped, or a listing that failed (`MCP_LIST_TOOLS_FAILED`, the old tools kept). */
  readonly diagnostics: readonly ContextDiagnostic[];
}

const DEFAULTS = Object.freeze({ callTimeoutMs: 60_000, connectTimeoutMs: 30_000 });
/** Longest wait for a failed server to go away: the SDK's stdin-close and SIGTERM grace periods, then SIGKILL. */
const SHUTDOWN_WAIT_MS = 5_000;
/** Kept from a stdio server's stderr to explain a failed connection. */
const STDERR_TAIL_CHARS = 2_000;

/**
 * Connects to an MCP server over stdio or Streamable HTTP and lists its
 * tools. A tool call never throws: MCP `isError` results and protocol
 * failures come back as structured tool errors. A connection that cannot be
 * made throws `McpConnectionError` naming the server, and leaves no child
 * process behind.
 */
export async function connectMcpServer(options: ConnectMcpServerOptions): Promise<McpServerConnection> {
  const { server, callTimeoutMs = DEFAULTS.callTimeoutMs, connectTimeoutMs = DEFAULTS.connectTimeoutMs, signal } = options;
  if (typeof server.name !== 'string' || server.name.trim() === '') {
    throw new McpConnectionError({ code: 'MCP_SERVER_NAME_INVALID', server: String(server.name), message: 'an MCP server needs a non-empty name' });
  }
  const { transport, stderrTail } = createTransport(server.transport);
  const client = new Client({ name: 'strata', version: '0.1.0' });
  let closed = false;
  // Fires when the transport is gone: for stdio, once the child process has exited.
  const transportClosed = new Promise<void>((resolve) => {
    client.onclose = () => {
      closed = true;
      resolve();
    };
  });
  const requestOptions = { timeout: connectTimeoutMs, signal };

  try {
    await client.connect(transport, requestOptions);
  } catch (error) {
    // The SDK starts closing on a failed initialize without waiting; wait here so no child outlives the error.
    await client.close().catch(() => undefined);
    await transport.close().catch(() => undefined);
    await Promise.race([transportClosed, delay(SHUTDOWN_WAIT_MS)]);
    if (signal?.aborted === true) throw signal.reason;
    const tail = stderrTail();
    throw new McpConnectionError({
      code: 'MCP_CONNECT_FAILED',
      server: server.name,
      message: `cannot connect to MCP server "${server.name}": ${describeThrown(error)}${tail === '' ? '' : `; its stderr ends with: ${tail}`}`,
      cause: error,
    });
  }

  const pid = transport instanceof StdioClientTransport ? (transport.pid ?? undefined) : undefined;
  const close = async (): Promise<void> => {
    closed = true;
    await client.close();
  };

  const listTools = async (): Promise<Awaited<ReturnType<Client['listTools']>>['tools']> => {
    const listed: Awaited<ReturnType<Client['listTools']>>['tools'] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools({ cursor }, requestOptions);
      listed.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    return listed;
  };
  let listed: Awaited<ReturnType<Client['listTools']>>['tools'];
  try {
    listed = await listTools();
  } catch (error) {
    await close().catch(() => undefined);
    throw new McpConnectionError({ code: 'MCP_LIST_TOOLS_FAILED', server: server.name, message: `MCP server "${server.name}" did not list its tools: ${describeThrown(error)}`, cause: error });
  }

  const serverInfo = client.getServerVersion();
  const toRegistrations = (tools: typeof listed): { registrations: ToolRegistration[]; diagnostics: ContextDiagnostic[] } => {
    const registrations: ToolRegistration[] = [];
    const diagnostics: ContextDiagnostic[] = [];
    const used = new Set<string>();
    for (const tool of [...tools].sort((left, right) => (left.name < right.name ? -1 : 1))) {
      let name = mcpToolName(server.name, tool.name);
      // Sanitizing can map two tool names to one ("a.b", "a_b"): the later one gets a numeric suffix.
      for (let suffix = 2; used.has(name); suffix += 1) name = mcpToolName(server.name, `${tool.name}_${suffix}`);
      const identity: McpToolIdentity = { name, server: server.name, mcpTool: tool.name };
      let parameters: Readonly<Record<string, unknown>>;
      try {
        parameters = normalizeParameterSchema(name, tool.inputSchema).schema;
      } catch (error) {
        if (!ToolDefinitionError.isInstance(error)) throw error;
        diagnostics.push({ code: 'MCP_TOOL_SKIPPED', severity: 'warning', subject: name, message: `MCP server "${server.name}", tool "${tool.name}": ${error.message}` });
        continue;
      }
      used.add(name);
      const definition: ToolDefinition = {
        name,
        description: tool.description ?? tool.title ?? `Tool "${tool.name}" of MCP server "${server.name}".`,
        parameters,
        concurrencySafe: tool.annotations?.readOnlyHint === true,
        async execute(input, context) {
          try {
            const result = await client.callTool(
              { name: tool.name, arguments: input as { [key: string]: JsonValue } },
              undefined,
              { signal: context.signal, timeout: callTimeoutMs },
            );
            return mcpResultOutcome(identity, result as McpCallResult);
          } catch (error) {
            // An abort is the run's decision, not the server's failure: the registry reports it.
            if (context.signal.aborted) throw error;
            return mcpFailureOutcome(identity, error, closed);
          }
        },
      };
      const hints = [server.name, `mcp server ${server.name}`, tool.name, tool.title, serverInfo?.name, serverInfo?.title].filter(
        (hint): hint is string => typeof hint === 'string' && hint !== '',
      );
      registrations.push({ tool: definition, deferred: true, routingHints: [...new Set(hints)] });
    }
    return { registrations, diagnostics };
  };
  const { registrations, diagnostics } = toRegistrations(listed);

  // Followers of tools/list_changed; the handler is set once, for every registry the tools were registered in.
  const followers = new Set<(tools: typeof listed | Error) => void>();
  client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
    if (followers.size === 0) return;
    const tools = await listTools().catch((error: unknown) => (error instanceof Error ? error : new Error(describeThrown(error))));
    for (const follower of followers) follower(tools);
  });
  const registerTools = (registry: ToolRegistry, options: { onToolsChanged?: (change: McpToolsChange) => void } = {}): (() => void) => {
    let current = new Map(registrations.map((registration) => [registration.tool.name, registration]));
    registry.registerAll([...current.values()]);
    const follower = (tools: typeof listed | Error): void => {
      if (tools instanceof Error) {
        const message = `MCP server "${server.name}" announced changed tools but did not list them: ${tools.message}; its previous tools stay`;
        options.onToolsChanged?.({ server: server.name, added: [], removed: [], diagnostics: [{ code: 'MCP_LIST_TOOLS_FAILED', severity: 'warning', subject: server.name, message }] });
        return;
      }
      const next = toRegistrations(tools);
      const fresh = new Map(next.registrations.map((registration) => [registration.tool.name, registration]));
      const promoted = new Set(registry.deferredTools().filter((tool) => tool.promoted).map((tool) => tool.name));
      const removed = [...current.keys()].filter((name) => !fresh.has(name));
      const added = [...fresh.keys()].filter((name) => !current.has(name));
      for (const name of current.keys()) registry.unregister(name);
      registry.registerAll([...fresh.values()]);
      registry.promote([...fresh.keys()].filter((name) => promoted.has(name)));
      current = fresh;
      options.onToolsChanged?.({ server: server.name, added, removed, diagnostics: next.diagnostics });
    };
    followers.add(follower);
    return () => void followers.delete(follower);
  };

  return {
    server: server.name,
    registrations,
    diagnostics,
    instructions: client.getInstructions(),
    pid,
    registerTools,
    close,
  };
}

function createTransport(config: McpTransportConfig): { transport: Transport; stderrTail: () => string } {
  if (config.type === 'streamable-http') {
    const url = typeof config.url === 'string' ? new URL(config.url) : config.url;
    const transport = new StreamableHTTPClientTransport(url, { requestInit: { headers: { ...config.headers } } });
    return { transport, stderrTail: () => '' };
  }
  const transport = new StdioClientTransport({
    command: config.command,
    args: [...(config.args ?? [])],
    env: config.env === undefined ? undefined : { ...config.env },
    cwd: config.cwd,
    stderr: 'pipe',
  });
  let tail = '';
  // Drained continuously so a chatty server never blocks on a full pipe.
  transport.stderr?.on('data', (chunk: Buffer | string) => {
    tail = (tail + chunk.toString()).slice(-STDERR_TAIL_CHARS);
  });
  return { transport, stderrTail: () => tail.trim() };
}

/** A wait that does not keep the process alive. */
function delay(milliseconds: number): Promise<void> {
  return setTimeout(milliseconds, undefined, { ref: false });
}
