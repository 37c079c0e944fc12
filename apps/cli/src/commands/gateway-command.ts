// strata gateway --upstream URL: OpenAI- and Anthropic-compatible endpoints whose every upstream request Strata assembles.
import { resolve } from 'node:path';
import { createFileTraceSink } from '@strata/store';
import { parseCommandArguments, oneOf, positiveInteger } from '../cli-arguments.js';
import type { CommandHelp } from '../cli-help.js';
import { CliInputError } from '../cli-input-error.js';
import type { CliIo } from '../cli-io.js';
import { defaultRunTraceDirectory } from '../run/trace-directory.js';
import { viewerRoutes } from '../viewer/serve-viewer.js';
import { stopRequested } from './service-catalog-loader.js';

/** The options `strata gateway` parses; GATEWAY_HELP documents each. */
export const GATEWAY_OPTIONS = Object.freeze({
  upstream: { type: 'string' },
  provider: { type: 'string' },
  host: { type: 'string' },
  port: { type: 'string' },
  window: { type: 'string' },
  store: { type: 'string' },
  token: { type: 'string' },
  'max-body-bytes': { type: 'string' },
  'max-messages': { type: 'string' },
  'trace-dir': { type: 'string' },
  'shutdown-timeout-ms': { type: 'string' },
} as const);

export const GATEWAY_HELP: CommandHelp = Object.freeze<CommandHelp>({
  usage: 'gateway --upstream URL [--window N] [--provider openai|anthropic] [--host ADDRESS] [--port N] [--store sqlite:<path>|postgres://...|memory:] [--token T] [--max-body-bytes N] [--max-messages N] [--trace-dir DIR] [--shutdown-timeout-ms N]',
  summary: 'OpenAI chat and Anthropic messages endpoints: each conversation one Strata context, every upstream request assembled within the window',
  options: [
    ['--upstream URL', "the upstream's base URL, e.g. https://api.openai.com/v1 (required)"],
    ['--window N', "input tokens of every upstream request at most; default: asked of the upstream per model (Anthropic's Models API for /v1/messages; /v1/models of vLLM or LM Studio, then Ollama's /api/show, for OpenAI requests), cached; a model no server says the window of is refused with a 400"],
    ['--provider openai|anthropic', 'the API the upstream speaks (default openai); /v1/chat/completions and /v1/messages are forwarded each in its own API'],
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
  ],
});

export async function gatewayCommand(args: readonly string[], io: CliIo): Promise<number> {
  const { values } = parseCommandArguments('strata gateway', args, GATEWAY_OPTIONS);
  if (!values.upstream) throw new CliInputError({ culprit: '--upstream', message: 'strata gateway: --upstream <base URL> is required' });
  // Both front ends are served, each forwarded in its own API; the upstream's provider is checked, not yet used (no translation).
  oneOf(values.provider, '--provider', ['openai', 'anthropic'] as const, 'openai');
  const host = values.host?.trim() || '127.0.0.1';
  const token = values.token?.trim() || io.env.STRATA_GATEWAY_TOKEN?.trim() || undefined;
  if (token !== undefined && token.length < 16) throw new CliInputError({ culprit: values.token ? '--token' : 'STRATA_GATEWAY_TOKEN', message: 'strata gateway: the token must be at least 16 characters' });
  if (!['127.0.0.1', '::1', 'localhost'].includes(host) && token === undefined) {
    throw new CliInputError({ culprit: '--host', message: `strata gateway: --host ${host} binds beyond 127.0.0.1: clients must present a token (--token or STRATA_GATEWAY_TOKEN)` });
  }
  const optional = (value: string | undefined, option: string) => (value === undefined ? undefined : positiveInteger(value, option, 0));
  const traceDirectory = resolve(io.cwd, values['trace-dir'] ?? (io.env.STRATA_CONTEXT_TRACE_DIR?.trim() || defaultRunTraceDirectory({ env: io.env, home: io.env.HOME || io.env.USERPROFILE || undefined })));
  const { DEFAULT_GATEWAY_STORE, startGateway } = await import('@strata/gateway');
  const gateway = await startGateway({
    upstream: values.upstream,
    windowTokens: optional(values.window, '--window'),
    store: values.store ?? DEFAULT_GATEWAY_STORE,
    hostname: host,
    // 0 picks a free port (the URL printed first says which).
    port: values.port === undefined ? undefined : values.port.trim() === '0' ? 0 : positiveInteger(values.port, '--port', 8788),
    upstreamApiKey: io.env.STRATA_UPSTREAM_API_KEY?.trim() || undefined,
    token,
    maxBodyBytes: optional(values['max-body-bytes'], '--max-body-bytes'),
    maxMessages: optional(values['max-messages'], '--max-messages'),
    shutdownTimeoutMs: values['shutdown-timeout-ms'] === undefined ? undefined : values['shutdown-timeout-ms'].trim() === '0' ? 0 : positiveInteger(values['shutdown-timeout-ms'], '--shutdown-timeout-ms', 0),
    traceSink: createFileTraceSink({ directory: traceDirectory }),
    view: viewerRoutes({ directory: traceDirectory, base: '/strata/view' }),
    onNotice: (message) => io.stderr.write(`[gateway] ${message}\n`),
  });
  io.stdout.write(`${gateway.url}\n`);
  io.stderr.write(`[gateway] traces in ${traceDirectory}, viewer at ${gateway.url.replace(/\/v1$/, '')}/strata/view\n`);
  await stopRequested(io);
  // Requests in flight finish (streams to their end), then the store closes.
  await gateway.close();
  return 0;
}
