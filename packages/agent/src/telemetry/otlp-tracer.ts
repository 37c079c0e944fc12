// The tracer a run uses: OTLP over HTTP when OTEL_EXPORTER_OTLP_ENDPOINT is
// set, nothing otherwise. Read at the edge (the CLI, default bindings).
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import type { Tracer } from '@opentelemetry/api';

export interface OtlpTracer {
  readonly tracer: Tracer;
  /** Flushes and stops the exporter. */
  shutdown(): Promise<void>;
}

/** An OTLP tracer when `OTEL_EXPORTER_OTLP_ENDPOINT` is set (the exporter reads the standard OTEL_* variables); else undefined. */
export function otlpTracerFromEnvironment(env: Readonly<Record<string, string | undefined>>): OtlpTracer | undefined {
  if (!env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim()) return undefined;
  const provider = new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())] });
  return { tracer: provider.getTracer('strata'), shutdown: () => provider.shutdown() };
}
