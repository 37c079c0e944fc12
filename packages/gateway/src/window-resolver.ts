// The window of each model a gateway request names, asked of the upstream when no window is configured.
import { ConfigurationError } from '@strata/context';
import { ModelWindowDiscovery, type DiscoverWindowOptions, type DiscoveredWindow } from '@strata/model';
import type { GatewayWindow } from './gateway-app.js';

export interface WindowResolverOptions {
  /** The upstream's base URL, as the gateway's `upstream`. */
  readonly upstream: string;
  /** The configured window: when set it wins, and nothing is asked. */
  readonly windowTokens?: number;
  /** The key discovery asks with. Default: the key the request goes upstream with. */
  readonly apiKey?: string;
  /** Default: a discovery of this resolver's own (an answer is cached per server, base URL and model). */
  readonly discovery?: ModelWindowDiscovery;
  readonly fetch?: typeof globalThis.fetch;
  /** Receives what discovery noticed beside the window (Ollama's unset `num_ctx`). */
  readonly onNotice?: (message: string) => void;
}

/**
 * The gateway's `windowTokens` as a resolver: the configured window when
 * given; else the window the upstream says for the model a request names:
 * Anthropic's Models API (`max_input_tokens`) for `/v1/messages`; an
 * OpenAI-compatible server's `/v1/models` (vLLM's `max_model_len`, LM
 * Studio's context length), then Ollama's `/api/show`, for the OpenAI front
 * ends. A model's window, once known, is kept for the process; a model no
 * server says the window of is a `ConfigurationError` naming it and `--window`.
 */
export function createWindowResolver(options: WindowResolverOptions): number | GatewayWindow {
  if (typeof options !== 'object' || options === null) throw new ConfigurationError({ setting: 'window', message: 'createWindowResolver: an options object is required' });
  if (options.windowTokens !== undefined) {
    if (!Number.isSafeInteger(options.windowTokens) || options.windowTokens < 1_000) throw new ConfigurationError({ setting: 'window', message: `the window must be an integer of at least 1000 tokens, got ${JSON.stringify(options.windowTokens)}` });
    return options.windowTokens;
  }
  const discovery = options.discovery ?? new ModelWindowDiscovery();
  const known = new Map<string, number>();
  return async ({ model, api, apiKey }) => {
    const key = `${api} ${model}`;
    const cached = known.get(key);
    if (cached !== undefined) return cached;
    const ask = (server: DiscoverWindowOptions['server']): Promise<DiscoveredWindow> => discovery.discover({ server, baseURL: options.upstream, model, apiKey: options.apiKey ?? apiKey, fetch: options.fetch });
    const answers = api === 'anthropic' ? [await ask('anthropic')] : [await ask('openai-compatible')];
    if (api === 'openai' && answers[0]!.tokens === undefined) answers.push(await ask('ollama'));
    const found = answers.find((answer) => answer.tokens !== undefined);
    if (found === undefined) {
      const reasons = answers.flatMap((answer) => answer.diagnostics.map((diagnostic) => diagnostic.message)).join('; ');
      throw new ConfigurationError({ setting: 'window', message: `the window of ${model} is not known: the gateway has no --window and the upstream did not say it (${reasons}); start it with --window <tokens>` });
    }
    for (const diagnostic of found.diagnostics) options.onNotice?.(diagnostic.message);
    known.set(key, found.tokens!);
    return found.tokens!;
  };
}
