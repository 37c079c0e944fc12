// The tracer a run uses: OTLP when the standard OpenTelemetry variables ask
// for it, nothing otherwise. Read at the edge (the CLI).
//
// The protocol is OTEL_EXPORTER_OTLP_TRACES_PROTOCOL, else
// OTEL_EXPORTER_OTLP_PROTOCOL: `http/json` (the default here, so the HTTP
// exporter alone is enough), `http/protobuf` or `grpc`, each sent by the SDK's
// own exporter for it (OTLP_TRACE_EXPORTERS), an optional peer imported only
// when its protocol is asked for. Another value is said once and traces go as
// http/json.
//
// The SDK does its own configuration: the exporter reads the endpoint
// (OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, else OTEL_EXPORTER_OTLP_ENDPOINT +
// /v1/traces), headers, timeout and compression; the resource's environment
// detector reads OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES. Both read the
// process environment. The SDK packages are optional peers of @strata/agent,
// imported only here and only when telemetry is on.
//
// Telemetry never breaks a run: an export that fails (a collector down, a
// timeout, a refusal) is said once through `warn`, and `shutdown` never throws.
import type { Tracer } from '@opentelemetry/api';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';
import { ConfigurationError } from '@strata/context';

export interface OtlpTracer {
  readonly tracer: Tracer;
  /** Flushes and stops the exporter. Never rejects: a failed export was said through `warn`. */
  shutdown(): Promise<void>;
}

export interface OtlpTracerOptions {
  /** Called with one line: at most once when exports fail, and once for an unsupported OTEL_EXPORTER_OTLP_PROTOCOL. Default: ignore. */
  readonly warn?: (line: string) => void;
  /** Imports a module (tests inject one that fails). Default: `import(specifier)`. */
  readonly importModule?: (specifier: string) => Promise<unknown>;
}

/** The SDK packages telemetry needs with the default protocol (http/json); optional peers of @strata/agent. */
export const OTEL_SDK_PACKAGES = ['@opentelemetry/sdk-trace-base', '@opentelemetry/exporter-trace-otlp-http', '@opentelemetry/resources'] as const;

/** The OTLP protocols traces can be sent with, and the SDK exporter package that sends each (an optional peer of @strata/agent). */
export const OTLP_TRACE_EXPORTERS = Object.freeze({
  'http/json': '@opentelemetry/exporter-trace-otlp-http',
  'http/protobuf': '@opentelemetry/exporter-trace-otlp-proto',
  grpc: '@opentelemetry/exporter-trace-otlp-grpc',
} as const);

/** An OTLP protocol a run's traces can be sent with. */
export type OtlpTraceProtocol = keyof typeof OTLP_TRACE_EXPORTERS;

/** The protocol when no variable names one: JSON over HTTP. */
const DEFAULT_PROTOCOL: OtlpTraceProtocol = 'http/json';

/** The service name when neither OTEL_SERVICE_NAME nor OTEL_RESOURCE_ATTRIBUTES names one. */
const DEFAULT_SERVICE_NAME = 'strata';

/**
 * Whether `env` asks for OTLP traces: an OTLP endpoint is set, or
 * OTEL_TRACES_EXPORTER names `otlp`; never when OTEL_TRACES_EXPORTER is `none`
 * (or names no `otlp`) or OTEL_SDK_DISABLED is `true`.
 */
export function otlpTracesEnabled(env: Readonly<Record<string, string | undefined>>): boolean {
  if (typeof env !== 'object' || env === null) return false;
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  const exporters = env.OTEL_TRACES_EXPORTER?.split(',').map((name) => name.trim().toLowerCase()).filter((name) => name !== '');
  if (exporters !== undefined && exporters.length > 0) return exporters.includes('otlp');
  return Boolean(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim());
}

/**
 * An OTLP tracer when `env` asks for one (see `otlpTracesEnabled`), else
 * undefined. Rejects with a `ConfigurationError` naming the package when
 * telemetry is asked for and an SDK package is not installed.
 */
export async function otlpTracerFromEnvironment(env: Readonly<Record<string, string | undefined>>, options?: OtlpTracerOptions): Promise<OtlpTracer | undefined> {
  if (!otlpTracesEnabled(env)) return undefined;
  const load = options?.importModule ?? ((specifier: string) => import(specifier) as Promise<unknown>);
  const { protocol, variable, unsupported } = protocolOf(env);
  if (unsupported !== undefined) options?.warn?.(`telemetry: ${variable}=${unsupported} is not supported (use ${Object.keys(OTLP_TRACE_EXPORTERS).join(', ')}); traces are sent as ${protocol}`);
  const packages = [OTEL_SDK_PACKAGES[0], OTLP_TRACE_EXPORTERS[protocol], OTEL_SDK_PACKAGES[2]] as const;
  const [traceBase, exporterModule, resources] = await Promise.all(packages.map((name) => importPeer(name, packages, variable ?? 'OTEL_EXPORTER_OTLP_ENDPOINT', load)));
  const { BasicTracerProvider, BatchSpanProcessor } = traceBase as typeof import('@opentelemetry/sdk-trace-base');
  // The three exporters have the same shape: a constructor whose configuration defaults to the environment's.
  const { OTLPTraceExporter } = exporterModule as typeof import('@opentelemetry/exporter-trace-otlp-http');
  const { defaultResource, detectResources, envDetector, resourceFromAttributes } = resources as typeof import('@opentelemetry/resources');

  let warned = false;
  const warnOnce = (error: unknown) => {
    if (warned) return;
    warned = true;
    const reason = error instanceof Error ? error.message : error === undefined ? 'the export failed' : String(error);
    options?.warn?.(`telemetry: could not export traces (${reason.split('\n')[0]}); the run goes on without them`);
  };
  const exporter = guarded(new OTLPTraceExporter(), warnOnce);
  // Ours, then the environment's (OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES): the later one wins.
  const resource = defaultResource()
    .merge(resourceFromAttributes({ 'service.name': DEFAULT_SERVICE_NAME }))
    .merge(detectResources({ detectors: [envDetector] }));
  const provider = new BasicTracerProvider({ resource, spanProcessors: [new BatchSpanProcessor(exporter)] });
  return {
    tracer: provider.getTracer('@strata/agent'),
    shutdown: async () => {
      try {
        await provider.shutdown();
      } catch (error) {
        warnOnce(error);
      }
    },
  };
}

/**
 * The protocol `env` asks for: the traces' variable, else the general one;
 * `unsupported` holds a value that names none (then the default is used).
 */
function protocolOf(env: Readonly<Record<string, string | undefined>>): { protocol: OtlpTraceProtocol; variable?: string; unsupported?: string } {
  for (const variable of ['OTEL_EXPORTER_OTLP_TRACES_PROTOCOL', 'OTEL_EXPORTER_OTLP_PROTOCOL']) {
    const raw = env[variable];
    const value = typeof raw === 'string' ? raw.trim().toLowerCase() : '';
    if (value === '') continue;
    if (Object.hasOwn(OTLP_TRACE_EXPORTERS, value)) return { protocol: value as OtlpTraceProtocol, variable };
    return { protocol: DEFAULT_PROTOCOL, variable, unsupported: raw!.trim() };
  }
  return { protocol: DEFAULT_PROTOCOL };
}

/** Imports the optional peer `name`; one that is not installed is a ConfigurationError naming it and the install line for `all`. */
async function importPeer(name: string, all: readonly string[], setting: string, load: (specifier: string) => Promise<unknown>): Promise<unknown> {
  try {
    return await load(name);
  } catch (cause) {
    const code = (cause as { code?: unknown } | null)?.code;
    if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') throw cause;
    throw new ConfigurationError({
      setting,
      message: `OpenTelemetry traces need the optional peer dependency "${name}", which is not installed: run \`npm install ${all.join(' ')}\` (or unset the OTEL_EXPORTER_OTLP_* variables)`,
      cause,
    });
  }
}

/** `inner`, with each failed export said through `warn` (which says it once). */
function guarded(inner: SpanExporter, warn: (error: unknown) => void): SpanExporter {
  return {
    export(spans: ReadableSpan[], done: Parameters<SpanExporter['export']>[1]) {
      try {
        inner.export(spans, (result) => {
          if (result.code !== 0) warn(result.error);
          done(result);
        });
      } catch (error) {
        warn(error);
        done({ code: 1, error: error instanceof Error ? error : new Error(String(error)) });
      }
    },
    shutdown: () => inner.shutdown().catch(warn),
    forceFlush: () => (inner.forceFlush?.() ?? Promise.resolve()).catch(warn),
  };
}
