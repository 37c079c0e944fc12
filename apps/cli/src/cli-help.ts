// Every command's help, in one place: `strata --help`, `strata <command>
// --help`, `strata help <command>`, and the usage lines errors quote.
import { createRequire } from 'node:module';
import { TRAJECTORY_FORMATS } from '@strata/context';
import { REPLAY_POLICIES } from './replay/policy-turns.js';
import { REPLAY_ENCODINGS } from './replay/replay-trajectories.js';

/** Default input cap of `strata replay` when `--window` is not given. */
export const DEFAULT_REPLAY_WINDOW_TOKENS = 8_192;
/** Where `strata examples` writes unless `--out` says otherwise (git-ignored `.strata/`). */
export const DEFAULT_EXAMPLES_DIRECTORY = '.strata/examples';

export interface CommandHelp {
  /** The synopsis, without the leading `strata `. */
  readonly usage: string;
  /** What the command does, one line. */
  readonly summary: string;
  /** Each option (as typed) and what it means, its default included. */
  readonly options?: readonly (readonly [string, string])[];
  /** Further lines: exit codes, environment, notes. */
  readonly notes?: readonly string[];
  /** `strata trace show` and the like, by name. */
  readonly subcommands?: Readonly<Record<string, CommandHelp>>;
}

const TRACE_SUBCOMMANDS = Object.freeze({
  show: { usage: 'trace show <dir|file>', summary: 'a terminal summary of every turn' },
  diff: { usage: 'trace diff <a> <b>', summary: 'two turns (trace files) or two runs (directories): sections, messages, tokens by part' },
  view: { usage: 'trace view <dir> [--out FILE]', summary: 'one self-contained HTML viewer', options: [['--out FILE', 'where to write it (default report.html)']] },
  serve: { usage: 'trace serve <dir> [--port N]', summary: 'the viewer on 127.0.0.1, following a live run', options: [['--port N', 'the port (default: any free one)']] },
} satisfies Record<string, CommandHelp>);

/** The help of the built-in commands; `CLI_COMMANDS` pairs each with the code that runs it and sets the order `strata --help` lists them in. */
export const COMMAND_HELP = Object.freeze({
  examples: {
    usage: 'examples [--out DIR]',
    summary: 'run the reproducible examples (scripted model, no network), write traces and the viewer',
    options: [['--out DIR', `where to write (default ${DEFAULT_EXAMPLES_DIRECTORY})`]],
  },
  replay: {
    usage: `replay <file|dir>... [--format auto|${TRAJECTORY_FORMATS.join('|')}] [--window N] [--encoding ${REPLAY_ENCODINGS.join('|')}] [--policy NAME]... [--trace-dir DIR] [--oracle FILE] [--json]`,
    summary: 'replay recorded agent runs turn by turn through the assembler, every chosen policy side by side',
    options: [
      ['--format NAME', 'the trajectory format (default auto: detected by content)'],
      ['--window N', `the input cap every replayed model call is assembled for (default ${DEFAULT_REPLAY_WINDOW_TOKENS})`],
      ['--encoding NAME', `how tokens are counted: ${REPLAY_ENCODINGS.join(', ')} (default o200k)`],
      ['--policy NAME', `a policy to compare, repeatable: ${REPLAY_POLICIES.join(', ')} (default all)`],
      ['--trace-dir DIR', "write each Strata turn's trace under DIR/<policy>"],
      ['--oracle FILE', 'the provider-rules oracle (default $STRATA_SHARED_DIR/tools/provider-rules.mjs or ../shared/tools/provider-rules.mjs when present)'],
      ['--json', 'the whole report as JSON on stdout, also when a policy failed on every run'],
    ],
    notes: [
      'A directory stands for its .json, .jsonl and .traj files. Reduction, cost and later-use recall compare the runs every chosen policy assembled; the runs a policy could not assemble are listed.',
      'Exit code 0: every record replayed under every policy; 1: some records or runs failed; 2: bad input, nothing replayed, or every Strata policy failed on every run.',
    ],
  },
  run: {
    usage: 'run "<task>" --model <provider:model> [--workdir DIR] [--skills DIR] [--mcp FILE] [--max-turns N] [--trace-dir DIR]',
    summary: 'a live run with a real provider; output streams, Ctrl-C cancels and the trace is still written',
    options: [
      ['--model SPEC', 'provider:model, e.g. openai:gpt-4.1 or openai-compatible:http://127.0.0.1:11434/v1#llama3.1 (default STRATA_MODEL)'],
      ['--workdir DIR', 'the folder the file tools are confined to (default .)'],
      ['--skills DIR', 'load skills from DIR'],
      ['--mcp FILE', 'connect the MCP servers of a {"mcpServers": {...}} JSON file'],
      ['--max-turns N', 'cap the run (default 30)'],
      ['--trace-dir DIR', `where traces go (default STRATA_CONTEXT_TRACE_DIR, else the per-user state directory: $XDG_STATE_HOME/strata/runs or ~/.local/state/strata/runs; on macOS ~/Library/Application Support/strata/runs, on Windows %LOCALAPPDATA%\\strata\\runs)`],
    ],
  },
  trace: {
    usage: 'trace show|diff|view|serve ...',
    summary: 'read trace files: a terminal summary, a diff, the HTML viewer, a live viewer',
    subcommands: TRACE_SUBCOMMANDS,
  },
  serve: {
    usage: 'serve [--workers N] [--port P] [--host H] [--catalog FILE]',
    summary: 'the run API (STRATA_SERVICE_TOKEN required) and N worker slots, each restarted under its slot',
    options: [
      ['--workers N', 'worker slots on this machine (default 2)'],
      ['--port P', 'the API port (default 8787)'],
      ['--host H', 'the address to listen on (default 127.0.0.1)'],
      ['--catalog FILE', 'an ES module exporting the ServiceCatalog (default: one profile over STRATA_MODEL)'],
    ],
    notes: ['Environment: STRATA_SERVICE_TOKEN, STRATA_SERVICE_DATABASE_URL.'],
  },
  worker: {
    usage: 'worker --slot N [--concurrency N] [--catalog FILE]',
    summary: 'run queued runs as worker-N (one process per slot; restart it under the same slot)',
    options: [
      ['--slot N', 'this worker\'s slot, unique across machines (required)'],
      ['--concurrency N', 'runs at once in this process'],
      ['--catalog FILE', 'an ES module exporting the ServiceCatalog (default: one profile over STRATA_MODEL)'],
    ],
    notes: ['Environment: STRATA_SERVICE_DATABASE_URL, STRATA_SERVICE_APPLICATION_VERSION.'],
  },
  migrate: {
    usage: 'migrate [--application-role ROLE]',
    summary: 'create the run service tables in STRATA_SERVICE_DATABASE_URL (workers then need no DDL rights)',
    options: [['--application-role ROLE', 'the role the workers connect as, granted what they need']],
  },
  gateway: {
    usage: 'gateway --upstream URL [--window N] [--provider openai|anthropic] [--host ADDRESS] [--port N] [--store sqlite:<path>|postgres://...|memory:] [--token T] [--max-body-bytes N] [--max-messages N] [--trace-dir DIR] [--shutdown-timeout-ms N]',
    summary: 'OpenAI chat and responses and Anthropic messages endpoints: each conversation one Strata context, every upstream request assembled within the window',
    options: [
      ['--upstream URL', "the upstream's base URL, e.g. https://api.openai.com/v1 (required)"],
      ['--window N', "input tokens of every upstream request at most; default: asked of the upstream per model (by the upstream's API: Anthropic's Models API for /v1/messages, or every front end under --provider anthropic; /v1/models of vLLM or LM Studio, then Ollama's /api/show, for OpenAI upstream requests), cached; a model no server says the window of is refused with a 400"],
      ['--provider openai|anthropic', 'the API every upstream request is in; without it, /v1/chat/completions, /v1/responses and /v1/messages are forwarded each in its own API. With it, the front end of the other API translates (see the notes)'],
      ['--host ADDRESS', 'the address to bind (default 127.0.0.1); any other needs --token'],
      ['--port N', 'the port (default 8788; 0 picks a free one)'],
      ['--store URL', 'where contexts and stored outputs are kept (default sqlite:strata-gateway.db); postgres://...[?schema=NAME] for several gateways sharing the load'],
      ['--token T', 'the token clients present (default STRATA_GATEWAY_TOKEN; at least 16 characters): Authorization: Bearer T, x-api-key: T or x-strata-token: T; never sent upstream'],
      ['--max-body-bytes N', 'a longer request body is refused with a 413 (default 33554432, 32 MiB)'],
      ['--max-messages N', 'a request with more messages is refused with a 400 (default 10000)'],
      ['--trace-dir DIR', 'where each upstream call\'s trace goes, shown at /strata/view (default STRATA_CONTEXT_TRACE_DIR, else the per-user state directory\'s runs, as strata run)'],
      ['--shutdown-timeout-ms N', 'on SIGTERM or SIGINT, how long requests in flight may finish before their connections are cut (default 30000); the store closes after'],
    ],
    notes: [
      'Prints its base URL as the first line. The upstream key is STRATA_UPSTREAM_API_KEY when set, else the client\'s own header is forwarded (with --token, send the token as x-strata-token to keep Authorization or x-api-key for the key).',
      'Clients name a conversation with the x-strata-session header; without it, by its opening (system and first user message).',
      'GET /health answers without a token; GET /strata/view is the trace viewer (with --token, open /strata/view?token=T once).',
      'With --provider, a request of the other API is translated through Strata\'s canonical messages: system prompt, tool calls and results, stop reasons and usage (input/output tokens) mapped; the client\'s key goes in the upstream\'s header (Bearer to x-api-key and back; anthropic-version 2023-06-01 unless sent). A streamed request is answered as the finished answer replayed as the client\'s stream (the upstream is called unstreamed). Over Anthropic, max_tokens is the client\'s max_completion_tokens or max_tokens, else 4096; temperature is capped at 1. Fields the upstream\'s API has no meaning for (and tools it cannot declare) are not sent and are listed in the x-strata-dropped-fields response header. An upstream error keeps its status, in the client\'s error shape, its own body in upstream_error. /v1/responses is refused with a 400 under --provider anthropic; /v1/messages/count_tokens is always our own count, never forwarded. GET /v1/models and /v1/models/{id} answer in the client\'s API (a client sending anthropic-version is Anthropic\'s): OpenAI\'s whole list from every page of Anthropic\'s, Anthropic\'s one page from OpenAI\'s list.',
      'OpenTelemetry as `strata run`: with OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) set, one trace per client request, a span per upstream call; OTEL_SERVICE_NAME, OTEL_EXPORTER_OTLP_PROTOCOL and the other OTEL_* variables are the SDK\'s own.',
    ],
  },
} satisfies Record<string, CommandHelp>);

export type CommandName = keyof typeof COMMAND_HELP;

const COMMON_OPTIONS: readonly (readonly [string, string])[] = [
  ['--help, -h', 'this help'],
  ['--version, -v', 'the version of strata'],
];

/**
 * Each command's help by name, in the order `strata --help` lists them: the
 * built-in `COMMAND_HELP`, or the table of the commands `runCli` was given
 * (see `CLI_COMMANDS`), so a command added there is listed and helped too.
 */
export type HelpTable = Readonly<Record<string, CommandHelp>>;

/** The synopsis of a command or subcommand, as errors quote it: `strata replay <file|dir>... [...]`. */
export function usageOf(command: CommandName, subcommand?: string): string {
  const help = subcommand === undefined ? COMMAND_HELP[command] : helpOf(COMMAND_HELP, [command, subcommand]);
  return `strata ${help?.usage ?? COMMAND_HELP[command].usage}`;
}

/** The help of `strata <path...>` in `table`, or undefined when the path names no command. */
export function helpOf(table: HelpTable, path: readonly string[]): CommandHelp | undefined {
  let help: CommandHelp | undefined = Object.hasOwn(table, path[0] ?? '') ? table[path[0]!] : undefined;
  for (const name of path.slice(1)) help = help?.subcommands && Object.hasOwn(help.subcommands, name) ? help.subcommands[name] : undefined;
  return help;
}

/** `strata --help`: every command's synopsis and what it does. */
export function overviewText(table: HelpTable): string {
  const lines = ['usage: strata <command> [options]', ''];
  for (const help of Object.values(table)) {
    const entries = help.subcommands ? (Object.values(help.subcommands) as CommandHelp[]) : [help];
    for (const entry of entries) lines.push(`  strata ${entry.usage}`, `      ${entry.summary}`);
  }
  lines.push('', 'Every command takes --help and --version; `strata help <command>` is the same as `strata <command> --help`.', '');
  return lines.join('\n');
}

/** `strata <path...> --help`: the synopsis, what it does, its subcommands or options, its notes. */
export function helpText(help: CommandHelp): string {
  const lines = [`usage: strata ${help.usage}`, '', help.summary];
  if (help.subcommands) {
    lines.push('', 'commands:');
    for (const entry of Object.values(help.subcommands) as CommandHelp[]) lines.push(`  strata ${entry.usage}`, `      ${entry.summary}`);
  }
  const options = [...(help.options ?? []), ...COMMON_OPTIONS];
  const width = Math.max(...options.map(([flag]) => flag.length));
  lines.push('', 'options:', ...options.map(([flag, meaning]) => `  ${flag.padEnd(width)}  ${meaning}`));
  if (help.notes) lines.push('', ...help.notes);
  lines.push('');
  return lines.join('\n');
}

/** The version in @strata/cli's package.json. */
export function strataVersion(): string {
  return (createRequire(import.meta.url)('../package.json') as { version: string }).version;
}

/**
 * What `argv` asks of the help: `--help`/`-h` or `--version`/`-v` anywhere
 * before a `--` (the first of them wins), or `strata help [command...]`.
 * Undefined when it asks for neither; the command then runs.
 */
export function helpRequest(argv: readonly string[], table: HelpTable): { readonly kind: 'help'; readonly path: readonly string[] } | { readonly kind: 'version' } | undefined {
  const end = argv.indexOf('--');
  const args = end < 0 ? argv : argv.slice(0, end);
  if (args[0] === 'help') return { kind: 'help', path: args.slice(1).filter((arg) => !arg.startsWith('-')) };
  const flag = args.find((arg) => arg === '--help' || arg === '-h' || arg === '--version' || arg === '-v');
  if (flag === undefined) return undefined;
  if (flag === '--version' || flag === '-v') return { kind: 'version' };
  // The command and, for one with subcommands, the subcommand: the leading words that name them.
  const path: string[] = [];
  for (const arg of args) {
    if (arg.startsWith('-') || !helpOf(table, [...path, arg])) break;
    path.push(arg);
  }
  const named = args[0] !== undefined && !args[0].startsWith('-') ? args[0] : undefined;
  return { kind: 'help', path: named !== undefined && path.length === 0 ? [named] : path };
}
