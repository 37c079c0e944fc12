// strata gateway --upstream URL: OpenAI- and Anthropic-compatible endpoints on 127.0.0.1 whose every upstream request Strata assembles.
import { parseCommandArguments, oneOf, positiveInteger } from '../cli-arguments.js';
import type { CommandHelp } from '../cli-help.js';
import { CliInputError } from '../cli-input-error.js';
import type { CliIo } from '../cli-io.js';
import { stopRequested } from './service-catalog-loader.js';

/** The options `strata gateway` parses; GATEWAY_HELP documents each. */
export const GATEWAY_OPTIONS = Object.freeze({ upstream: { type: 'string' }, provider: { type: 'string' }, port: { type: 'string' }, window: { type: 'string' }, store: { type: 'string' } } as const);

export const GATEWAY_HELP: CommandHelp = Object.freeze<CommandHelp>({
  usage: 'gateway --upstream URL --window N [--provider openai|anthropic] [--port N] [--store sqlite:<path>|postgres://...|memory:]',
  summary: 'OpenAI chat and Anthropic messages endpoints on 127.0.0.1: each conversation one Strata context, every upstream request assembled within the window',
  options: [
    ['--upstream URL', "the upstream's base URL, e.g. https://api.openai.com/v1 (required)"],
    ['--window N', 'input tokens of every upstream request at most (required)'],
    ['--provider openai|anthropic', 'the API the upstream speaks (default openai); /v1/chat/completions and /v1/messages are forwarded each in its own API'],
    ['--port N', 'the port (default 8788; 0 picks a free one)'],
    ['--store URL', 'where contexts and stored outputs are kept (default sqlite:strata-gateway.db)'],
  ],
  notes: [
    'Prints its base URL as the first line. The client key is forwarded upstream unless STRATA_UPSTREAM_API_KEY is set.',
    'Clients name a conversation with the x-strata-session header; without it, by its opening (system and first user message).',
  ],
});

export async function gatewayCommand(args: readonly string[], io: CliIo): Promise<number> {
  const { values } = parseCommandArguments('strata gateway', args, GATEWAY_OPTIONS);
  if (!values.upstream) throw new CliInputError({ culprit: '--upstream', message: 'strata gateway: --upstream <base URL> is required' });
  if (values.window === undefined) throw new CliInputError({ culprit: '--window', message: 'strata gateway: --window <tokens> is required' });
  // Both front ends are served, each forwarded in its own API; the upstream's provider is checked, not yet used (no translation).
  oneOf(values.provider, '--provider', ['openai', 'anthropic'] as const, 'openai');
  const { DEFAULT_GATEWAY_STORE, startGateway } = await import('@strata/gateway');
  const gateway = await startGateway({
    upstream: values.upstream,
    windowTokens: positiveInteger(values.window, '--window', 0),
    store: values.store ?? DEFAULT_GATEWAY_STORE,
    // 0 picks a free port (the URL printed first says which).
    port: values.port === undefined ? undefined : values.port.trim() === '0' ? 0 : positiveInteger(values.port, '--port', 8788),
    upstreamApiKey: io.env.STRATA_UPSTREAM_API_KEY?.trim() || undefined,
  });
  io.stdout.write(`${gateway.url}\n`);
  await stopRequested(io);
  await gateway.close();
  return 0;
}
