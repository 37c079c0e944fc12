// strata gateway --upstream URL [--provider openai|anthropic]: OpenAI- and Anthropic-compatible endpoints whose every upstream request Strata assembles.
import { resolve } from 'node:path';
import { createAgentTelemetry, otlpTracerFromEnvironment } from '@strata/agent';
import { createFileTraceSink } from '@strata/store';
import { parseCommandArguments, oneOf, positiveInteger } from '../cli-arguments.js';
import { CliInputError } from '../cli-input-error.js';
import type { CliIo } from '../cli-io.js';
import { defaultRunTraceDirectory } from '../run/trace-directory.js';
import { viewerRoutes } from '../viewer/serve-viewer.js';
import { stopRequested } from './service-catalog-loader.js';

/** The options `strata gateway` parses; its help (COMMAND_HELP.gateway) documents each. */
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

export async function gatewayCommand(args: readonly string[], io: CliIo): Promise<number> {
  const { values } = parseCommandArguments('strata gateway', args, GATEWAY_OPTIONS);
  if (!values.upstream) throw new CliInputError({ culprit: '--upstream', message: 'strata gateway: --upstream <base URL> is required' });
  // Without --provider each front end forwards in its own API; with it every upstream request is in that API.
  const provider = values.provider === undefined ? undefined : oneOf(values.provider, '--provider', ['openai', 'anthropic'] as const, 'openai');
  const host = values.host?.trim() || '127.0.0.1';
  const token = values.token?.trim() || io.env.STRATA_GATEWAY_TOKEN?.trim() || undefined;
  if (token !== undefined && token.length < 16) throw new CliInputError({ culprit: values.token ? '--token' : 'STRATA_GATEWAY_TOKEN', message: 'strata gateway: the token must be at least 16 characters' });
  if (!['127.0.0.1', '::1', 'localhost'].includes(host) && token === undefined) {
    throw new CliInputError({ culprit: '--host', message: `strata gateway: --host ${host} binds beyond 127.0.0.1: clients must present a token (--token or STRATA_GATEWAY_TOKEN)` });
  }
  const optional = (value: string | undefined, option: string) => (value === undefined ? undefined : positiveInteger(value, option, 0));
  const traceDirectory = resolve(io.cwd, values['trace-dir'] ?? (io.env.STRATA_CONTEXT_TRACE_DIR?.trim() || defaultRunTraceDirectory({ env: io.env, home: io.env.HOME || io.env.USERPROFILE || undefined })));
  const { DEFAULT_GATEWAY_STORE, startGateway } = await import('@strata/gateway');
  // OTLP when the OTEL_* variables ask for it, as `strata run`: one trace per client request; an export that fails is said once
  // and never changes a request's outcome.
  const warn = (line: string) => io.stderr.write(`[gateway] ${line}\n`);
  const otlp = await otlpTracerFromEnvironment(io.env, { warn });
  let gateway: Awaited<ReturnType<typeof startGateway>>;
  try {
    gateway = await startGateway({
      upstream: values.upstream,
      provider,
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
      telemetry: otlp ? (request) => createAgentTelemetry({ tracer: otlp.tracer, provider: request.provider, model: request.model, contextId: request.contextId, agentName: 'strata-gateway', warn }) : undefined,
      onNotice: warn,
    });
  } catch (error) {
    await otlp?.shutdown();
    throw error;
  }
  io.stdout.write(`${gateway.url}\n`);
  io.stderr.write(`[gateway] traces in ${traceDirectory}, viewer at ${gateway.url.replace(/\/v1$/, '')}/strata/view\n`);
  await stopRequested(io);
  // Requests in flight finish (streams to their end), then the store closes.
  await gateway.close();
  // The spans of the last requests are flushed before the process ends.
  await otlp?.shutdown();
  return 0;
}
