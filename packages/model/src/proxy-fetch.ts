import { EnvHttpProxyAgent, type ProxyAgent, fetch as undiciFetch } from 'undici';
import { ModelConfigurationError } from './errors/model-configuration-error.js';

type ModelEnvironment = Readonly<Record<string, string | undefined>>;

/** A proxy URL and the variable or option it came from, which errors name. */
export interface ProxySetting {
  /** `http://[user:password@]host:port` or `https://...`. */
  readonly url: string;
  readonly setting: string;
}

export interface ProxyFetchOptions {
  /** The proxy for http:// targets. Default: none. */
  readonly httpProxy?: ProxySetting;
  /** The proxy for https:// targets. Default: `httpProxy`. */
  readonly httpsProxy?: ProxySetting;
  /** Hosts reached directly, as `NO_PROXY` lists them: `host`, `.suffix`, `*.suffix`, `host:port` or `*`. */
  readonly noProxy?: string;
  /** Extra trusted certificates for TLS to the target (tests, inspecting proxies). */
  readonly ca?: string | readonly string[];
}

/**
 * The proxy settings an environment record names, the way common tools read
 * them: `HTTP_PROXY`, `HTTPS_PROXY` and `NO_PROXY`, the upper-case form
 * first, then the lower-case one. Undefined when no proxy variable is set.
 */
export function proxyOptionsFromEnvironment(env: ModelEnvironment): ProxyFetchOptions | undefined {
  const httpProxy = proxySetting(env, 'HTTP_PROXY');
  const httpsProxy = proxySetting(env, 'HTTPS_PROXY');
  if (httpProxy === undefined && httpsProxy === undefined) return undefined;
  return { httpProxy, httpsProxy, noProxy: env.NO_PROXY ?? env.no_proxy ?? '' };
}

function proxySetting(env: ModelEnvironment, name: string): ProxySetting | undefined {
  for (const setting of [name, name.toLowerCase()]) {
    const url = env[setting]?.trim() ?? '';
    if (url !== '') return { url, setting };
  }
  return undefined;
}

/**
 * A `fetch` whose requests go through undici's `EnvHttpProxyAgent`: http
 * targets in absolute form to the http proxy, https targets through a
 * `CONNECT` tunnel, hosts `noProxy` lists directly; connections are kept
 * alive, and request and response bodies stream. Reads only the options,
 * never `process.env`. A proxy URL that is not http(s) is a
 * `ModelConfigurationError` naming its setting, before any request.
 */
export function createProxyFetch(options: ProxyFetchOptions): typeof globalThis.fetch {
  const tls = options.ca === undefined ? {} : { ca: [options.ca].flat() };
  const agentOptions: EnvHttpProxyAgent.Options & Pick<ProxyAgent.Options, 'proxyTunnel' | 'requestTls'> = {
    // '' rather than undefined: for undefined, undici would read process.env itself.
    httpProxy: checkedProxyUrl(options.httpProxy) ?? '',
    httpsProxy: checkedProxyUrl(options.httpsProxy) ?? '',
    noProxy: options.noProxy ?? '',
    // Plain http targets go to an http proxy in absolute form, as curl sends them; https always tunnels.
    proxyTunnel: false,
    connect: tls,
    requestTls: tls,
  };
  const dispatcher = new EnvHttpProxyAgent(agentOptions);
  const proxied = (input: Parameters<typeof undiciFetch>[0], init?: Parameters<typeof undiciFetch>[1]) => undiciFetch(input, { ...init, dispatcher });
  return proxied as unknown as typeof globalThis.fetch;
}

function checkedProxyUrl(proxy: ProxySetting | undefined): string | undefined {
  if (proxy === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(proxy.url);
  } catch (cause) {
    throw new ModelConfigurationError({ code: 'MODEL_PROXY_INVALID', setting: proxy.setting, message: `${proxy.setting}: '${proxy.url}' is not a proxy URL`, cause });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ModelConfigurationError({ code: 'MODEL_PROXY_INVALID', setting: proxy.setting, message: `${proxy.setting}: only http:// and https:// proxies are supported, got '${url.protocol}'` });
  }
  return proxy.url;
}
