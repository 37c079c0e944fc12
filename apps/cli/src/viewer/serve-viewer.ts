// `strata trace serve`: the viewer on 127.0.0.1; the page polls for new turns,
// so it follows a run that is still writing traces.
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

export async function serveViewer(options: ServeViewerOptions): Promise<{ url: string; close(): Promise<void> }> {
  // The runs the page was last given: a turn's detail is read from them, so opening a turn reads no file.
  const cache: TraceFileCache = new Map();
  // Read once before serving, so the first page comes from parsed traces.
  let shown: TraceRun[] = await currentRuns(options.directory, cache);
  const server = createServer((request, response) => {
    const reply = async () => {
      const detail = /^\/turn\/(\d+)$/.exec(request.url ?? '');
      if (detail) {
        const found = viewerDetailAt(shown, Number(detail[1]));
        if (found) response.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(JSON.stringify(found));
        else response.writeHead(404).end();
        return;
      }
      if (request.url === '/turns.json') {
        shown = await currentRuns(options.directory, cache);
        response.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(JSON.stringify({ turns: viewerTurns(shown) }));
      } else if (request.url === '/' || request.url === '/index.html') {
        shown = await currentRuns(options.directory, cache);
        response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(await renderViewerHtml(shown, { followUrl: '/turns.json', detailUrl: '/turn/' }));
      } else response.writeHead(404).end();
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
