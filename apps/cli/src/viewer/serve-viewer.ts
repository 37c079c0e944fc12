// `strata trace serve`: the viewer on 127.0.0.1; the page polls for new turns,
// so it follows a run that is still writing traces. `viewerRoutes` answers the
// same pages wherever they are mounted (`strata gateway` serves them at /strata/view).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readTraceDirectory, type TraceFileCache, type TraceRun } from '../trace/read-traces.js';
import { renderViewerHtml, viewerDetailAt, viewerTurns } from './render-viewer.js';

export interface ServeViewerOptions {
  readonly directory: string;
  /** 0 picks a free port. */
  readonly port: number;
}

/** Traces read on every request (a file parsed once, while it is unchanged); a directory with no trace yet shows an empty page. */
async function currentRuns(directory: string, cache: TraceFileCache): Promise<TraceRun[]> {
  try {
    return await readTraceDirectory(directory, cache);
  } catch {
    return [];
  }
}

/**
 * The viewer's pages over a trace directory, by path below where they are
 * mounted (`base`, e.g. `/strata/view`; default the root): `/` the page,
 * `/turns.json` the turns it polls for, `/turn/<n>` one turn's detail;
 * anything else is undefined.
 */
export function viewerRoutes(options: { readonly directory: string; readonly base?: string }): (path: string) => Promise<Response | undefined> {
  const base = (options.base ?? '').replace(/\/+$/, '');
  // The runs the page was last given: a turn's detail is read from them, so opening a turn reads no file.
  const cache: TraceFileCache = new Map();
  let shown: TraceRun[] | undefined;
  return async (path) => {
    const detail = /^\/turn\/(\d+)$/.exec(path);
    if (detail) {
      shown ??= await currentRuns(options.directory, cache);
      const found = viewerDetailAt(shown, Number(detail[1]));
      return found ? Response.json(found, { headers: { 'cache-control': 'no-store' } }) : undefined;
    }
    if (path === '/turns.json') {
      shown = await currentRuns(options.directory, cache);
      return Response.json({ turns: viewerTurns(shown) }, { headers: { 'cache-control': 'no-store' } });
    }
    if (path === '/' || path === '/index.html') {
      shown = await currentRuns(options.directory, cache);
      return new Response(await renderViewerHtml(shown, { followUrl: `${base}/turns.json`, detailUrl: `${base}/turn/` }), { headers: { 'content-type': 'text/html; charset=utf-8' } });
    }
    return undefined;
  };
}

export async function serveViewer(options: ServeViewerOptions): Promise<{ url: string; close(): Promise<void> }> {
  const routes = viewerRoutes({ directory: options.directory });
  // Read once before serving, so the first page comes from parsed traces.
  await routes('/turns.json');
  const server = createServer((request, response) => {
    const reply = async () => {
      const answer = await routes(request.url ?? '/');
      if (answer === undefined) response.writeHead(404).end();
      else response.writeHead(answer.status, Object.fromEntries(answer.headers)).end(Buffer.from(await answer.arrayBuffer()));
    };
    reply().catch((error: unknown) => response.writeHead(500).end(String(error)));
  });
  await new Promise<void>((done) => server.listen(options.port, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () => new Promise<void>((done) => {
      server.closeAllConnections();
      server.close(() => done());
    }),
  };
}
