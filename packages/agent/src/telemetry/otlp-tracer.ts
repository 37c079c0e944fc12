// The tracer a run uses: OTLP over HTTP when the standard OpenTelemetry
// variables ask for it, nothing otherwise. Read at the edge (the CLI).
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

/** The SDK packages telemetry needs; optional peers of @strata/agent. */
export const OTEL_SDK_PACKAGES = ['@opentelemetry/sdk-trace-base', '@opentelemetry/exporter-trace-otlp-http', '@opentelemetry/resources'] as const;

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
  const [traceBase, exporterModule, resources] = await Promise.all(OTEL_SDK_PACKAGES.map((name) => importPeer(name, load)));
  const { BasicTracerProvider, BatchSpanProcessor } = traceBase as typeof import('@opentelemetry/sdk-trace-base');
  const { OTLPTraceExporter } = exporterModule as typeof import('@opentelemetry/exporter-trace-otlp-http');
  const { defaultResource, detectResources, envDetector, resourceFromAttributes } = resources as typeof import('@opentelemetry/resources');

  let warned = false;
  const warnOnce = (error: unknown) => {
    if (warned) return;
    warned = true;
    const reason = error instanceof Error ? error.message : error === undefined ? 'the export failed' : String(error);
    options?.warn?.(`telemetry: could not export traces (${reason.split('\n')[0]}); the run goes on without them`);
  };
  // This exporter speaks OTLP/HTTP with JSON; another protocol asked for is said, not silently ignored.
  const protocol = (env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL)?.trim();
  if (protocol && protocol !== 'http/json') options?.warn?.(`telemetry: OTEL_EXPORTER_OTLP_PROTOCOL=${protocol} is not supported; traces are sent as http/json`);
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

async function importPeer(name: string, load: (specifier: string) => Promise<unknown>): Promise<unknown> {
  try {
    return await load(name);
  } catch (cause) {
    const code = (cause as { code?: unknown } | null)?.code;
    if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') throw cause;
    throw new ConfigurationError({
      setting: 'OTEL_EXPORTER_OTLP_ENDPOINT',
      message: `OpenTelemetry traces need the optional peer dependency "${name}", which is not installed: run \`npm install ${OTEL_SDK_PACKAGES.join(' ')}\` (or unset the OTEL_EXPORTER_OTLP_* variables)`,
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
