import { randomUUID, timingSafeEqual, createHash } from 'node:crypto';
import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { streamSSE } from 'hono/streaming';
import { ServiceRequestError } from './errors/service-request-error.js';
import { RUN_STATUSES, type RunDirectory, type RunStatusName } from './run-directory.js';
import type { RunLog } from './run-log.js';

/** Default: a request body of at most 1 MiB. */
export const MAX_BODY_BYTES = 1_048_576;
/** Default: a prompt of at most 256 KiB of text. */
export const MAX_PROMPT_CHARS = 262_144;
/** How often an event stream looks for new events. */
export const EVENT_POLL_MS = 250;

export interface ServiceAppOptions {
  readonly runs: RunDirectory;
  readonly runLog: Pick<RunLog, 'events' | 'traces'>;
  /** Profiles and models a run may name (the catalog's). */
  readonly profiles: readonly string[];
  readonly models: readonly string[];
  /** Every request carries `Authorization: Bearer <token>`. Required, non-empty. */
  readonly token: string;
  readonly maxBodyBytes?: number;
  readonly newRunId?: () => string;
  /** Waits between event-stream polls; tests pass one that resolves at once. */
  readonly sleep?: (ms: number) => Promise<void>;
  /**
   * The trace viewer, given by the caller that owns it (the CLI): a run's
   * traces as one page that follows the run (`GET /runs/:id/view`), and the
   * turns the page polls for (`GET /runs/:id/view/turns.json`).
   */
  readonly viewer?: TraceViewer;
}

export interface TraceViewer {
  /** The page for a run's trace documents; it polls `followUrl` for new turns. */
  page(traces: readonly unknown[], followUrl: string): Promise<string>;
  /** What the page's poll returns for the same documents. */
  turns(traces: readonly unknown[]): unknown;
}

/**
 * The run service's HTTP API. Every error is `{ error: { code, message } }`
 * with a 4xx status for the caller's mistakes; a refused `POST /runs`
 * enqueues nothing.
 */
function viewerOf(viewer: TraceViewer | undefined): TraceViewer {
  if (!viewer) throw new ServiceRequestError({ code: 'NOT_FOUND', status: 404, message: 'this service has no trace viewer; `strata serve` mounts one' });
  return viewer;
}

export function createServiceApp(options: ServiceAppOptions): Hono {
  if (options.token.trim() === '') throw new RangeError('the service needs a non-empty bearer token');
  const { runs, runLog } = options;
  const maxBodyBytes = options.maxBodyBytes ?? MAX_BODY_BYTES;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const expected = digest(options.token);
  const app = new Hono();

  app.onError((error, context) => {
    if (ServiceRequestError.isInstance(error)) return context.json({ error: { code: error.code, message: error.message } }, error.status);
    return context.json({ error: { code: 'INTERNAL', message: 'the service failed to answer; see its log' } }, 500);
  });
  app.notFound((context) => context.json({ error: { code: 'NOT_FOUND', message: `no route ${context.req.method} ${context.req.path}` } }, 404));

  app.use('*', async (context, next) => {
    const header = context.req.header('authorization') ?? '';
    // A browser cannot send a header when it opens the viewer: its two routes also take `?token=`.
    const viewing = /^\/runs\/[^/]+\/view(\/turns\.json)?$/.test(context.req.path);
    const presented = /^Bearer (.+)$/.exec(header)?.[1] ?? (viewing ? context.req.query('token') : undefined);
    // Compared as digests: equal length, constant time.
    if (presented === undefined || !timingSafeEqual(digest(presented), expected)) {
      throw new ServiceRequestError({ code: 'UNAUTHORIZED', status: 401, message: 'a valid bearer token is required (Authorization: Bearer <token>)' });
    }
    await next();
  });
  app.use(
    '*',
    bodyLimit({
      maxSize: maxBodyBytes,
      onError: () => {
        throw new ServiceRequestError({ code: 'BODY_TOO_LARGE', status: 413, message: `the request body is over ${maxBodyBytes} bytes` });
      },
    }),
  );

  app.post('/runs', async (context) => {
    const body = await jsonBody(context);
    const profile = field(body, 'profile');
    const prompt = field(body, 'prompt');
    const model = body.model === undefined ? options.models[0] : field(body, 'model');
    if (prompt.trim() === '' || prompt.length > MAX_PROMPT_CHARS) throw invalid(`"prompt" must be non-empty text of at most ${MAX_PROMPT_CHARS} characters`);
    if (!options.profiles.includes(profile)) throw new ServiceRequestError({ code: 'UNKNOWN_PROFILE', status: 400, message: `no profile ${JSON.stringify(profile)}; known: ${options.profiles.join(', ')}` });
    if (model === undefined || !options.models.includes(model)) throw new ServiceRequestError({ code: 'UNKNOWN_MODEL', status: 400, message: `no model ${JSON.stringify(model)}; known: ${options.models.join(', ')}` });
    const runId = options.newRunId?.() ?? `run_${randomUUID()}`;
    await runs.enqueue({ runId, profile, model, prompt });
    return context.json({ id: runId, status: 'queued' }, 202);
  });

  app.get('/runs', async (context) => {
    const status = context.req.query('status');
    if (status !== undefined && !(RUN_STATUSES as readonly string[]).includes(status)) throw invalid(`"status" must be one of ${RUN_STATUSES.join(', ')}`);
    const limit = Number(context.req.query('limit') ?? 100);
    if (!Number.isInteger(limit) || limit < 1 || limit > 1_000) throw invalid('"limit" must be an integer from 1 to 1000');
    return context.json({ runs: await runs.list({ status: status as RunStatusName | undefined, limit }) });
  });

  app.get('/runs/:id', async (context) => context.json(await knownRun(context.req.param('id'))));

  app.post('/runs/:id/cancel', async (context) => {
    const run = await knownRun(context.req.param('id'));
    if (run.status === 'succeeded' || run.status === 'failed' || run.status === 'cancelled') throw finished(run.id, run.status);
    await runs.cancel(run.id);
    return context.json({ id: run.id, status: 'cancelled' }, 202);
  });

  app.post('/runs/:id/messages', async (context) => {
    const body = await jsonBody(context);
    if (typeof body.approved !== 'boolean') throw invalid('"approved" must be true or false');
    if (body.text !== undefined && typeof body.text !== 'string') throw invalid('"text" must be text');
    const run = await knownRun(context.req.param('id'));
    if (run.status !== 'running' && run.status !== 'queued') throw finished(run.id, run.status);
    const sent = await runs.send(run.id, { approved: body.approved, text: body.text as string | undefined });
    if (sent === 'not-waiting') throw new ServiceRequestError({ code: 'RUN_FINISHED', status: 409, message: `run ${run.id} is not waiting for a message now; try again when it asks` });
    return context.json({ id: run.id, delivered: true }, 202);
  });

  app.get('/runs/:id/traces', async (context) => {
    const run = await knownRun(context.req.param('id'));
    return context.json({ id: run.id, traces: await runLog.traces(run.id) });
  });

  app.get('/runs/:id/view', async (context) => {
    const run = await knownRun(context.req.param('id'));
    const viewer = viewerOf(options.viewer);
    const token = context.req.query('token');
    const followUrl = `/runs/${encodeURIComponent(run.id)}/view/turns.json${token === undefined ? '' : `?token=${encodeURIComponent(token)}`}`;
    const traces = (await runLog.traces(run.id)).map((trace) => trace.body);
    return context.html(await viewer.page(traces, followUrl));
  });

  app.get('/runs/:id/view/turns.json', async (context) => {
    const run = await knownRun(context.req.param('id'));
    const traces = (await runLog.traces(run.id)).map((trace) => trace.body);
    context.header('cache-control', 'no-store');
    return context.json(viewerOf(options.viewer).turns(traces));
  });

  app.get('/runs/:id/events', async (context) => {
    const run = await knownRun(context.req.param('id'));
    let after = Number(context.req.header('last-event-id') ?? 0) || 0;
    return streamSSE(context, async (stream) => {
      let closed = false;
      stream.onAbort(() => {
        closed = true;
      });
      while (!closed) {
        const events = await runLog.events(run.id, { afterSequence: after });
        for (const { sequence, event } of events) {
          await stream.writeSSE({ id: String(sequence), event: event.type, data: JSON.stringify(event) });
          after = sequence;
          if (event.type === 'run-finished') return;
        }
        if (events.length === 0) {
          const now = await runs.get(run.id);
          if (now === undefined || now.status === 'succeeded' || now.status === 'failed' || now.status === 'cancelled') {
            if ((await runLog.events(run.id, { afterSequence: after })).length === 0) {
              await stream.writeSSE({ event: 'end', data: JSON.stringify({ type: 'end', status: now?.status }) });
              return;
            }
            continue;
          }
          await sleep(EVENT_POLL_MS);
        }
      }
    });
  });

  async function knownRun(runId: string) {
    const run = await runs.get(runId);
    if (run === undefined) throw new ServiceRequestError({ code: 'RUN_NOT_FOUND', status: 404, message: `no run ${JSON.stringify(runId)}` });
    return run;
  }

  return app;
}

async function jsonBody(context: Context): Promise<Record<string, unknown>> {
  let body: unknown;
  try {
    body = JSON.parse(await context.req.text());
  } catch (error) {
    if (ServiceRequestError.isInstance(error)) throw error;
    throw new ServiceRequestError({ code: 'MALFORMED_JSON', status: 400, message: 'the request body is not JSON', cause: error });
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw invalid('the request body must be a JSON object');
  return body as Record<string, unknown>;
}

function field(body: Record<string, unknown>, name: string): string {
  const value = body[name];
  if (typeof value !== 'string') throw invalid(`"${name}" must be text`);
  return value;
}

function invalid(message: string): ServiceRequestError {
  return new ServiceRequestError({ code: 'INVALID_REQUEST', status: 400, message });
}

function finished(runId: string, status: string): ServiceRequestError {
  return new ServiceRequestError({ code: 'RUN_FINISHED', status: 409, message: `run ${runId} is ${status}` });
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}
