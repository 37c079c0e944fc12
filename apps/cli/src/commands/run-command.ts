// strata run "<task>" --model <provider:model>: a live run with a real provider.
import { readFile, realpath, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { ContextContributorFactory } from '@strata/context';
import { createAgentRun, createAgentTelemetry, otlpTracerFromEnvironment, resolveModelSettings, type AgentEvent } from '@strata/agent';
import { createModelClientFromSpecifier } from '@strata/model';
import { createFileTraceSink, createMemoryStores } from '@strata/store';
import { connectMcpServer, loadSkills, registerStandardTools, skillCatalogContributorFactory, ToolRegistry, type McpServerConfig, type McpServerConnection } from '@strata/tools';
import { CliInputError } from '../cli-input-error.js';
import { usageOf } from '../cli-help.js';
import { parseCommandArguments, positiveInteger } from '../cli-arguments.js';
import type { CliIo } from '../cli-io.js';
import { defaultRunTraceDirectory } from '../run/trace-directory.js';
import { workdirTools } from '../run/workdir-tools.js';

/** The options `strata run` parses; its help (COMMAND_HELP.run) documents each. */
export const RUN_OPTIONS = Object.freeze({
  model: { type: 'string' },
  workdir: { type: 'string' },
  skills: { type: 'string' },
  mcp: { type: 'string' },
  'max-turns': { type: 'string' },
  'trace-dir': { type: 'string' },
} as const);

export async function runCommand(args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArguments('strata run', args, RUN_OPTIONS);
  const task = positionals.join(' ').trim();
  if (task === '') throw new CliInputError({ culprit: 'task', message: `strata run: name the task; usage: ${usageOf('run')}` });
  const modelFlag = values.model ?? io.env.STRATA_MODEL;
  if (!modelFlag) throw new CliInputError({ culprit: '--model', message: 'strata run: --model is required (or STRATA_MODEL), e.g. openai:gpt-4.1 or openai-compatible:http://127.0.0.1:11434/v1#llama3.1' });
  const workdir = await existingDirectory(resolve(io.cwd, values.workdir ?? '.'), '--workdir');
  const maxTurns = positiveInteger(values['max-turns'], '--max-turns', 30);
  const model = createModelClientFromSpecifier({ model: modelFlag, env: io.env });
  // The window the server says (the environment wins, with a warning when it is larger) and exact counts where configured.
  const settings = await resolveModelSettings({ env: io.env, model, specifier: modelFlag, cwd: io.cwd });
  const { configuration } = settings;

  // Traces go to the per-user state directory unless told; the file tools never list, search or read them, even inside the workdir.
  const traceDirectory = resolve(io.cwd, values['trace-dir'] ?? configuration.traceDir ?? defaultRunTraceDirectory({ env: io.env, home: io.env.HOME || io.env.USERPROFILE || undefined }));
  const stores = createMemoryStores();
  const tools = new ToolRegistry();
  for (const tool of workdirTools(workdir, { hidden: [traceDirectory] })) tools.register(tool);
  const connections: McpServerConnection[] = [];
  const contributors: ContextContributorFactory[] = [];
  try {
    for (const server of values.mcp === undefined ? [] : await readMcpServers(resolve(io.cwd, values.mcp), values.mcp)) {
      const connection = await connectMcpServer({ server, signal: io.signal });
      connections.push(connection);
      tools.registerAll(connection.registrations);
    }
    const catalog = values.skills === undefined ? undefined : await loadSkills(await existingDirectory(resolve(io.cwd, values.skills), '--skills'));
    if (catalog) contributors.push(skillCatalogContributorFactory({ catalog }));
    registerStandardTools({ registry: tools, outputStore: stores.toolOutputs, skills: catalog });

    const contextId = `run-${new Date().toISOString().replace(/[:.]/g, '-')}`;
    // OTLP when the OTEL_* variables ask for it; an export that fails is said once and never changes the outcome.
    const otlp = await otlpTracerFromEnvironment(io.env, { warn: (line) => io.stderr.write(`[run] ${line}\n`) });
    const telemetry = otlp ? createAgentTelemetry({ tracer: otlp.tracer, provider: model.provider, model: model.modelId, contextId, agentName: 'strata-cli', warn: (line) => io.stderr.write(`[run] ${line}\n`) }) : undefined;
    const output = streamedText(io.stdout);
    const onEvent = (event: AgentEvent) => {
      telemetry?.onEvent(event);
      if (event.type === 'turn-start') output.turnStart(event.turn);
      else if (event.type === 'text-delta') output.write(event.text);
      else if (event.type === 'tool-call-start') io.stderr.write(`\n[tool] ${event.call.name} ${JSON.stringify(event.call.input).slice(0, 200)}\n`);
      else if (event.type === 'tool-call-end' && event.result.isError) io.stderr.write(`[tool] ${event.call.name} failed: ${event.result.content.split('\n')[0]}\n`);
      else if (event.type === 'history-compacted') io.stderr.write(`[context] compacted (${event.reason}): ${event.messagesBefore} -> ${event.messagesAfter} messages\n`);
      // What the window, the usage feedback and the counters noticed (a server that may have truncated the prompt, a window larger than it accepts).
      else if (event.type === 'diagnostic' && (event.diagnostic.severity !== 'info' || event.diagnostic.subject === 'model window')) io.stderr.write(`[context] ${event.diagnostic.code}: ${event.diagnostic.message}\n`);
    };
    const run = createAgentRun(
      { id: 'strata-cli', maxTurns, sections: { identity: `You are a careful agent working in the directory ${workdir} through its file tools.` }, contributors },
      {
        model,
        tools,
        outputStore: stores.toolOutputs,
        sessionStore: stores.sessions,
        traceSink: createFileTraceSink({ directory: traceDirectory }),
        configuration,
        estimator: settings.estimator,
        exactEstimator: settings.exactEstimator,
        diagnostics: settings.diagnostics,
        onStage: telemetry?.onStage,
      },
      { contextId, prompt: task, signal: io.signal, onEvent },
    );
    let result: Awaited<ReturnType<typeof run.execute>>;
    try {
      result = await run.execute();
    } finally {
      telemetry?.end();
      await otlp?.shutdown();
    }
    output.end();
    io.stderr.write(`[run] ${result.stopReason} after ${result.turns} turns; traces in ${traceDirectory}/${contextId} (strata trace show ${traceDirectory})\n`);
    if (result.stopReason === 'completed') return 0;
    if (result.stopReason === 'cancelled') return 130;
    const reason = result.error instanceof Error ? `: ${result.error.message.split('\n')[0]}` : '';
    io.stderr.write(`strata run: stopped (${result.stopReason})${reason}\n`);
    return 1;
  } finally {
    await Promise.all(connections.map((connection) => connection.close()));
  }
}

/**
 * The assistant's text as it streams: the text of a turn starts on a new
 * line when an earlier turn's text left one open, so two turns never run
 * together; `end` closes the last line.
 */
export function streamedText(stdout: CliIo['stdout']): { turnStart(turn: number): void; write(text: string): void; end(): void } {
  let turn = 0;
  let lastTextTurn: number | undefined;
  let lineOpen = false;
  return {
    turnStart: (next) => void (turn = next),
    write(text) {
      if (text === '') return;
      if (lineOpen && lastTextTurn !== turn) stdout.write('\n');
      stdout.write(text);
      lastTextTurn = turn;
      lineOpen = !text.endsWith('\n');
    },
    end() {
      if (lineOpen) stdout.write('\n');
      lineOpen = false;
    },
  };
}

/** The real path of the directory `path` (its links resolved once, here), or a `CliInputError` naming `option`. */
async function existingDirectory(path: string, option: string): Promise<string> {
  try {
    if ((await stat(path)).isDirectory()) return await realpath(path);
  } catch {
    // reported below
  }
  throw new CliInputError({ culprit: option, message: `${option} ${path}: not a directory` });
}

/**
 * MCP servers from a JSON file in the common `mcpServers` shape:
 * `{ "mcpServers": { "<name>": { "command", "args", "env", "cwd" } | { "url", "headers" } } }`.
 */
export async function readMcpServers(path: string, shown: string): Promise<McpServerConfig[]> {
  let document: unknown;
  try {
    document = JSON.parse(await readFile(path, 'utf8'));
  } catch (error) {
    throw new CliInputError({ culprit: shown, message: `--mcp ${shown}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : `not JSON (${(error as Error).message})`}` });
  }
  const servers = (document as { mcpServers?: unknown })?.mcpServers;
  if (typeof servers !== 'object' || servers === null || Array.isArray(servers)) throw new CliInputError({ culprit: shown, message: `--mcp ${shown}: expected an object with an "mcpServers" object` });
  return Object.entries(servers as Record<string, Record<string, unknown>>).map(([name, entry]) => {
    const where = `--mcp ${shown}: mcpServers.${name}`;
    if (typeof entry?.command === 'string') {
      const args = entry.args ?? [];
      if (!Array.isArray(args) || !args.every((arg) => typeof arg === 'string')) throw new CliInputError({ culprit: shown, message: `${where}.args: expected an array of strings` });
      return { name, transport: { type: 'stdio', command: entry.command, args, env: entry.env as Record<string, string> | undefined, cwd: entry.cwd as string | undefined } };
    }
    if (typeof entry?.url === 'string') return { name, transport: { type: 'streamable-http', url: entry.url, headers: entry.headers as Record<string, string> | undefined } };
    throw new CliInputError({ culprit: shown, message: `${where}: expected "command" (stdio) or "url" (Streamable HTTP)` });
  });
}
