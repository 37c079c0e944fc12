// A local OTLP/HTTP collector for telemetry tests: what the SDK's JSON exporter sends it, and helpers to read spans.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export type OtlpValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; arrayValue?: { values: OtlpValue[] } };
export type OtlpAttribute = { key: string; value: OtlpValue };
export type OtlpSpan = { traceId: string; spanId: string; parentSpanId?: string; name: string; attributes: OtlpAttribute[]; events?: Array<{ name: string; attributes: OtlpAttribute[] }> };
export type OtlpExport = { resourceSpans: Array<{ resource: { attributes: OtlpAttribute[] }; scopeSpans: Array<{ spans: OtlpSpan[] }> }> };

const valueOf = (value: OtlpValue | undefined): unknown =>
  value?.stringValue ?? (value?.intValue === undefined ? undefined : Number(value.intValue)) ?? value?.boolValue ?? value?.arrayValue?.values.map(valueOf);

/** The value of attribute `key` (numbers as numbers, arrays as arrays), or undefined. */
export const otlpAttribute = (attributes: OtlpAttribute[] | undefined, key: string): unknown => valueOf(attributes?.find((entry) => entry.key === key)?.value);

/** Every span of `exports`. */
export const otlpSpans = (exports: readonly OtlpExport[]): OtlpSpan[] => exports.flatMap((entry) => entry.resourceSpans.flatMap((resource) => resource.scopeSpans.flatMap((scope) => scope.spans)));

/** A local OTLP/HTTP receiver (JSON, as the http exporter sends it): the exports it was sent. `hang`: it reads them and never answers. */
export async function otlpReceiver(options: { hang?: boolean } = {}) {
  const exports: OtlpExport[] = [];
  const server = createServer((request, response) => {
    let raw = '';
    request.on('data', (part) => (raw += part));
    request.on('end', () => {
      if (request.url === '/v1/traces') exports.push(JSON.parse(raw) as OtlpExport);
      if (options.hang) return;
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    exports,
    close: () => new Promise<void>((done) => {
      server.closeAllConnections();
      server.close(() => done());
    }),
  };
}

/** A port nothing listens on: a collector that is down. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((done) => server.close(() => done()));
  return port;
}

/** `work` under the OTEL_* variables `otel` set in the process environment (where the SDK's exporter reads them), restored after. */
export async function withOtel<T>(otel: Record<string, string>, work: () => Promise<T>): Promise<T> {
  const saved = Object.fromEntries(Object.keys(otel).map((key) => [key, process.env[key]]));
  Object.assign(process.env, otel);
  try {
    return await work();
  } finally {
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  }
}
