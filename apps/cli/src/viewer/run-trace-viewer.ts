// The viewer for a service run's trace documents, mounted by `strata serve`
// at GET /runs/:id/view (the service owns the route, the CLI owns the page).
import type { ContextTraceV5 } from '@strata/context';
import type { TraceRun } from '../trace/read-traces.js';
import { renderViewerHtml, viewerDetails, viewerTurns } from './render-viewer.js';

/** A run's trace documents as the viewer's runs: one per context (the run, then its sub-agents), turns in order. */
export function traceRunsOf(documents: readonly unknown[]): TraceRun[] {
  const runs = new Map<string, TraceRun['turns'][number][]>();
  for (const document of documents) {
    const trace = document as ContextTraceV5;
    if (typeof trace !== 'object' || trace === null || trace.schemaVersion !== 5 || typeof trace.contextId !== 'string') continue;
    const turns = runs.get(trace.contextId) ?? [];
    turns.push({ file: `turn ${trace.turn}${trace.recoveryAttempt === null ? '' : ` (recovery ${trace.recoveryAttempt})`}`, trace });
    runs.set(trace.contextId, turns);
  }
  return [...runs.entries()]
    .sort(([left], [right]) => left.localeCompare(right))
    .map(([contextId, turns]) => ({ contextId, turns: turns.sort((a, b) => a.trace.turn - b.trace.turn || (a.trace.recoveryAttempt ?? 0) - (b.trace.recoveryAttempt ?? 0)) }));
}

/** What `strata serve` gives the service: the page that follows a run, and the turns it polls. */
export const runTraceViewer = {
  page: (documents: readonly unknown[], followUrl: string): Promise<string> => renderViewerHtml(traceRunsOf(documents), { followUrl }),
  turns: (documents: readonly unknown[]): unknown => {
    const runs = traceRunsOf(documents);
    // The page embeds each turn's detail; a poll brings the new ones with the summaries.
    return { turns: viewerTurns(runs), details: viewerDetails(runs).map((detail) => JSON.stringify(detail)) };
  },
};
