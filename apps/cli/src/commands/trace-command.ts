// strata trace show | diff | view | serve
import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { CliInputError } from '../cli-input-error.js';
import { parseCommandArguments } from '../cli-arguments.js';
import { usageOf } from '../cli-help.js';
import type { CliIo } from '../cli-io.js';
import { compactionSummary, diffTurns, receiptLines, windowReceiptLines, readTraceDirectory, sectionOutcomes, tokensByPart, type TraceRun, type TraceTurn, type TokensByPart } from '../trace/read-traces.js';
import { renderViewerHtml } from '../viewer/render-viewer.js';
import { serveViewer } from '../viewer/serve-viewer.js';
import { formatTable } from './replay-command.js';

/** The options each `strata trace` subcommand parses; its help (COMMAND_HELP.trace.subcommands) documents each. */
export const TRACE_OPTIONS = Object.freeze({
  show: {},
  diff: {},
  view: { out: { type: 'string' } },
  serve: { port: { type: 'string' } },
} as const);

export async function traceCommand(args: readonly string[], io: CliIo): Promise<number> {
  const [subcommand, ...rest] = args;
  switch (subcommand) {
    case 'show': {
      const { positionals } = parseCommandArguments('strata trace show', rest, TRACE_OPTIONS.show);
      const runs = await readTraceDirectory(resolve(io.cwd, required(positionals[0], usageOf('trace', 'show'))));
      io.stdout.write(renderRuns(runs));
      return 0;
    }
    case 'diff': {
      const { positionals } = parseCommandArguments('strata trace diff', rest, TRACE_OPTIONS.diff);
      const a = await readTraceDirectory(resolve(io.cwd, required(positionals[0], usageOf('trace', 'diff'))));
      const b = await readTraceDirectory(resolve(io.cwd, required(positionals[1], usageOf('trace', 'diff'))));
      io.stdout.write(renderDiff(lastTurn(a), lastTurn(b), a, b));
      return 0;
    }
    case 'view': {
      const { positionals, values } = parseCommandArguments('strata trace view', rest, TRACE_OPTIONS.view);
      const runs = await readTraceDirectory(resolve(io.cwd, required(positionals[0], usageOf('trace', 'view'))));
      const out = values.out ?? 'report.html';
      await writeFile(resolve(io.cwd, out), await renderViewerHtml(runs));
      io.stdout.write(`wrote ${out} (${runs.reduce((sum, run) => sum + run.turns.length, 0)} turns); open it in a browser, no network needed\n`);
      return 0;
    }
    case 'serve': {
      const { positionals, values } = parseCommandArguments('strata trace serve', rest, TRACE_OPTIONS.serve);
      const given = required(positionals[0], usageOf('trace', 'serve'));
      const directory = resolve(io.cwd, given);
      const port = values.port === undefined ? 0 : Number(values.port);
      if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new CliInputError({ culprit: '--port', message: `--port must be 0-65535, got "${values.port}"` });
      const server = await serveViewer({ directory, port });
      io.stdout.write(`serving ${given} on ${server.url} (Ctrl-C stops)\n`);
      await new Promise<void>((done) => (io.signal?.aborted ? done() : io.signal?.addEventListener('abort', () => done(), { once: true })));
      await server.close();
      return 0;
    }
    default:
      throw new CliInputError({ culprit: subcommand ?? 'trace', message: `strata trace: expected show, diff, view or serve${subcommand === undefined ? '' : `, got "${subcommand}"`}` });
  }
}

function required(value: string | undefined, usage: string): string {
  if (value === undefined) throw new CliInputError({ culprit: usage, message: `usage: ${usage}` });
  return value;
}

/** A single trace file stands for its turn; a directory of one run for its last turn. */
function lastTurn(runs: readonly TraceRun[]): TraceTurn {
  return runs.at(-1)!.turns.at(-1)!;
}

const parts = (tokens: TokensByPart | null) => (tokens ? `${tokens.system}/${tokens.tools}/${tokens.data}/${tokens.history}` : '-');

/** One table per run: turn; input tokens by part; compaction; diagnostics. */
export function renderRuns(runs: readonly TraceRun[]): string {
  const blocks = runs.map((run) => {
    const rows = run.turns.map(({ trace }) => {
      const tokens = tokensByPart(trace);
      const sections = sectionOutcomes(trace);
      return [
        `${trace.turn}${trace.recoveryAttempt ? ` (recovery ${trace.recoveryAttempt})` : ''}`,
        trace.selectedPath,
        tokens ? `${tokens.total}/${tokens.window}` : '-',
        parts(tokens),
        `${trace.renderedContext?.window.keptMessages ?? trace.llmInput.messages.length}/${trace.renderedContext?.window.historyMessages ?? '-'}`,
        compactionSummary(trace) ?? '-',
        `${sections.truncated.length} truncated, ${sections.dropped.length} dropped`,
        trace.diagnostics.map((diagnostic) => diagnostic.code).join(', ') || '-',
      ];
    });
    // Below the table, each compaction's receipts: what left, its tokens, where it lives, how to get it back.
    // And each window cut's: the stored outputs that left the window at that turn, listed in <earlier_outputs>.
    const receipts = run.turns.flatMap(({ trace }, index) => {
      const lines = receiptLines(trace);
      const windowed = windowReceiptLines(trace, run.turns[index - 1]?.trace);
      return [
        ...(lines.length === 0 ? [] : [`turn ${trace.turn} compaction receipts (${lines.length}):`, ...lines.map((line) => `  ${line}`)]),
        ...(windowed.length === 0 ? [] : [`turn ${trace.turn} window receipts (${windowed.length} left the window):`, ...windowed.map((line) => `  ${line}`)]),
      ];
    });
    return `${run.contextId} (${run.turns.length} turns)\n${formatTable(['turn', 'path', 'input/window', 'system/tools/data/history', 'messages kept', 'compaction', 'sections', 'diagnostics'], rows)}${receipts.length > 0 ? `\n${receipts.join('\n')}` : ''}`;
  });
  return `${blocks.join('\n\n')}\n`;
}

function renderDiff(a: TraceTurn, b: TraceTurn, runsA: readonly TraceRun[], runsB: readonly TraceRun[]): string {
  const diff = diffTurns(a.trace, b.trace);
  const lines = [
    `from ${a.file} (${a.trace.contextId} turn ${a.trace.turn}) to ${b.file} (${b.trace.contextId} turn ${b.trace.turn})`,
    `sections: +${diff.sections.added.join(', ') || 'none'}; -${diff.sections.removed.join(', ') || 'none'}; truncated ${diff.sections.truncated.join(', ') || 'none'}; dropped ${diff.sections.dropped.join(', ') || 'none'}`,
    `messages: ${diff.messages.added} added, ${diff.messages.compacted} compacted, ${diff.messages.removed} removed, ${diff.messages.kept} kept`,
    `tokens system/tools/data/history: ${parts(diff.tokens.before)} -> ${parts(diff.tokens.after)} (total ${diff.tokens.before?.total ?? '-'} -> ${diff.tokens.after?.total ?? '-'})`,
  ];
  const turnsA = runsA.reduce((sum, run) => sum + run.turns.length, 0);
  const turnsB = runsB.reduce((sum, run) => sum + run.turns.length, 0);
  if (turnsA > 1 || turnsB > 1) lines.push(`runs: ${turnsA} turns -> ${turnsB} turns (compared: the last turn of each)`);
  return `${lines.join('\n')}\n`;
}
