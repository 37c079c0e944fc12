import { randomUUID, timingSafeEqual, createHash, createHmac } from 'node:crypto';
import { inspect } from 'node:util';
import { Hono, type Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import { redactCredentials } from '@strata/context';
import { ServiceRequestError } from './errors/service-request-error.js';
import { discardBody, MAX_DISCARDED_BODY_BYTES, readLimitedBody } from './request-body.js';
import { checkLastEventId, checkRunId, invalid, jsonObject, textField } from './request-input.js';
import { RUN_STATUSES, type RunDirectory, type RunStatusName } from './run-directory.js';
import type { RunLog } from './run-log.js';

/** Default: a request body of at most 1 MiB. */
export const MAX_BODY_BYTES = 1_048_576;
/** Default: a prompt of at most 256 KiB of text. */
export const MAX_PROMPT_CHARS = 262_144;
/** How often an event stream looks for new events. */
export const EVENT_POLL_MS = 250;

/** A request the service could not answer (a 5xx, or an event stream that broke off), for its log. */
export interface ServiceFailure {
  /** Also in the answer's message, so a caller's report finds the log line. */
  readonly incident: string;
  readonly method: string;
  /** The path without its query (a viewer's query carries the token). */
  readonly path: string;
  readonly error: unknown;
}

export interface ServiceAppOptions {
  readonly runs: RunDirectory;
  readonly runLog: Pick<RunLog, 'events' | 'traces'>;
  /** Profiles and models a run may name (the catalog's). */
  readonly profiles: readonly string[];
  readonly models: readonly string[];
  /** Every request carries `Authorization: Bearer <token>` (the scheme in any case). Required, non-empty. */
  readonly token: string;
  readonly maxBodyBytes?: number;
  /** How much of a refused body is read and thrown away before the answer. Default `MAX_DISCARDED_BODY_BYTES`. */
  readonly maxDiscardedBodyBytes?: number;
  readonly newRunId?: () => string;
  /** Waits between event-stream polls; tests pass one that resolves at once. */
  readonly sleep?: (ms: number) => Promise<void>;
  /** Every failure answered with a 5xx, with its cause. Default: written to stderr, credentials redacted. */
  readonly onFailure?: (failure: ServiceFailure) => void;
  /**
   * The trace viewer, given by the caller that owns it (the CLI): a run's
   * traces as one page that follows the run (`GET /runs/:id/view`), and the
   * turns the page polls for (`GET /runs/:id/view/turns.json`).
   */
  readonly viewer?: TraceViewer;
}

export interface TraceViewer {
  /** The page for a run's trace documents; it polls `followUrl` (same origin, no token in it) for new turns. */
  page(traces: readonly unknown[], followUrl: string): Promise<string>;
  /** What the page's poll returns for the same documents. */
  turns(traces: readonly unknown[]): unknown;
}

/** The service's own log line for a failure: the cause with its stack and chain of causes. */
export function writeServiceFailure(failure: ServiceFailure): void {
  const cause = inspect(failure.error, { depth: 4, breakLength: Number.POSITIVE_INFINITY });
  process.stderr.write(`${redactCredentials(`strata service: incident ${failure.incident}: ${failure.method} ${JSON.stringify(failure.path)} failed: ${cause}`).text}\n`);
}

const VIEW_PATH = /^\/runs\/([^/]+)\/view(\/turns\.json)?$/;
const BEARER = /^bearer +(.+)$/i;

/**
 * The run service's HTTP API. Every error is `{ error: { code, message } }`
 * with a 4xx status for the caller's mistakes (a malformed run id included:
 * it is refused, never looked up) and 500 for the service's own, which is
 * reported to `onFailure` with its cause. A refused `POST /runs` enqueues
 * nothing. A body over the limit is answered 413 after the rest of it is
 * read (or, past `maxDiscardedBodyBytes`, with `Connection: close`), so a
 * client that is still sending receives the answer. Every answer carries
 * `Referrer-Policy: no-referrer`: the viewer's address holds the token.
 */
export function createServiceApp(options: ServiceAppOptions): Hono<{ Variables: { body: Uint8Array } }> {
  if (options.token.trim() === '') throw new RangeError('the service needs a non-empty bearer token');
  const { runs, runLog } = options;
  const maxBodyBytes = options.maxBodyBytes ?? MAX_BODY_BYTES;
  const discardBytes = options.maxDiscardedBodyBytes ?? MAX_DISCARDED_BODY_BYTES;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const onFailure = options.onFailure ?? writeServiceFailure;
  const expected = digest(options.token);
  const app = new Hono<{ Variables: { body: Uint8Array } }>();

  const report = (context: Context, error: unknown): string => {
    const incident = randomUUID();
    try {
      onFailure({ incident, method: context.req.method, path: context.req.path, error });
    } catch {
      // A failing logger must not turn one failure into another.
    }
    return incident;
  };

  app.onError((error, context) => {
    if (ServiceRequestError.isInstance(error)) return context.json({ error: { code: error.code, message: error.message } }, error.status);
    const incident = report(context, error);
    return context.json({ error: { code: 'INTERNAL', message: `the service failed to answer; see its log for incident ${incident}` } }, 500);
  });
  app.notFound((context) => context.json({ error: { code: 'NOT_FOUND', message: `no route ${context.req.method} ${JSON.stringify(context.req.path)}` } }, 404));

  // Outermost: whatever the answer, a body nobody read is read to its end first (or the connection closes after the answer).
  app.use('*', async (context, next) => {
    await next();
    context.header('referrer-policy', 'no-referrer');
    context.header('x-content-type-options', 'nosniff');
    if (!context.req.raw.bodyUsed && !(await discardBody(context.req.raw.body, discardBytes))) context.header('connection', 'close');
  });

  app.use('*', async (context, next) => {
    const header = context.req.header('authorization') ?? '';
    // A browser cannot send a header when it opens the viewer: the page takes `?token=`; the turns it polls, the run's view key.
    const view = VIEW_PATH.exec(context.req.path);
    const bearer = BEARER.exec(header)?.[1];
    const presented = bearer ?? (view === null ? undefined : context.req.query('token'));
    // Compared as digests: equal length, constant time.
    const byToken = presented !== undefined && timingSafeEqual(digest(presented), expected);
    const key = view?.[2] === undefined ? undefined : context.req.query('key');
    if (!byToken && !(key !== undefined && timingSafeEqual(digest(key), digest(viewKey(options.token, decodedSegment(view![1]!)))))) {
      throw new ServiceRequestError({ code: 'UNAUTHORIZED', status: 401, message: 'a valid bearer token is required (Authorization: Bearer <token>)' });
    }
    await next();
  });

  app.use('*', async (context, next) => {
    if (context.req.raw.body !== null) {
      const body = await readLimitedBody(context.req.raw, { maxBytes: maxBodyBytes, discardBytes });
      if (body.kind === 'too-large') {
        if (!body.drained) context.header('connection', 'close');
        throw new ServiceRequestError({ code: 'BODY_TOO_LARGE', status: 413, message: `the request body is over ${maxBodyBytes} bytes` });
      }
      context.set('body', body.bytes);
    }
    await next();
  });

  const jsonBody = (context: Context<{ Variables: { body: Uint8Array } }>) => jsonObject(context.get('body') ?? new Uint8Array(0));

  app.post('/runs', async (context) => {
    const body = jsonBody(context);
    const profile = textField(body, 'profile');
    const prompt = textField(body, 'prompt');
    const model = body.model === undefined ? options.models[0] : textField(body, 'model');
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
    const runId = checkRunId(context.req.param('id'));
    const body = jsonBody(context);
    if (typeof body.approved !== 'boolean') throw invalid('"approved" must be true or false');
    if (body.text !== undefined && typeof body.text !== 'string') throw invalid('"text" must be text');
    const run = await knownRun(runId);
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
    // The page polls with the run's view key, never the token: nothing in the page can open another run or the API.
    const followUrl = `/runs/${encodeURIComponent(run.id)}/view/turns.json?key=${viewKey(options.token, run.id)}`;
    const traces = (await runLog.traces(run.id)).map((trace) => trace.body);
    context.header('cache-control', 'no-store');
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
    let after = checkLastEventId(context.req.header('last-event-id'));
    return streamSSE(
      context,
      async (stream) => {
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
      },
      // The status line is sent: the stream ends with an `error` event naming the incident in the log.
      async (error, stream) => {
        const incident = report(context, error);
        await stream.writeSSE({ event: 'error', data: JSON.stringify({ type: 'error', code: 'INTERNAL', message: `the event stream failed; see the service's log for incident ${incident}` }) });
      },
    );
  });

  async function knownRun(value: string | undefined) {
    const runId = checkRunId(value);
    const run = await runs.get(runId);
    if (run === undefined) throw new ServiceRequestError({ code: 'RUN_NOT_FOUND', status: 404, message: `no run ${JSON.stringify(runId)}` });
    return run;
  }

  return app;
}

function viewerOf(viewer: TraceViewer | undefined): TraceViewer {
  if (!viewer) throw new ServiceRequestError({ code: 'NOT_FOUND', status: 404, message: 'this service has no trace viewer; `strata serve` mounts one' });
  return viewer;
}

/** What opens one run's viewer turns and nothing else: derived from the token, so it needs no state and dies with the token. */
function viewKey(token: string, runId: string): string {
  return createHmac('sha256', token).update(`strata.view-turns:${runId}`).digest('base64url');
}

/** A path segment as Hono's router decodes it; undecodable text stays as it is (and names no run). */
function decodedSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function finished(runId: string, status: string): ServiceRequestError {
  return new ServiceRequestError({ code: 'RUN_FINISHED', status: 409, message: `run ${runId} is ${status}` });
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}
