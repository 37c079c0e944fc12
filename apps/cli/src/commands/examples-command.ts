// strata examples [--out DIR]: the reproducible examples with the scripted
// model (no network, no key), their traces, the viewer and a per-turn table.
import { rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import * as examples from '../examples/index.js';
import { parseCommandArguments, pathUnder } from '../cli-arguments.js';
import { DEFAULT_EXAMPLES_DIRECTORY } from '../cli-help.js';
import type { CliIo } from '../cli-io.js';
import { readTraceDirectory } from '../trace/read-traces.js';
import { renderViewerHtml } from '../viewer/render-viewer.js';
import { renderRuns } from './trace-command.js';

type Example = (options: { outDir: string }) => Promise<unknown>;

/** Every `run<Name>Example` the examples module exports, in name order. */
function exampleRunners(): Array<[string, Example]> {
  return Object.entries(examples as Record<string, unknown>)
    .flatMap(([name, value]): Array<[string, Example]> => {
      const match = /^run(\w+)Example$/.exec(name);
      return match && typeof value === 'function' ? [[match[1]!.toLowerCase(), value as Example]] : [];
    })
    .sort(([a], [b]) => a.localeCompare(b));
}

/** The options `strata examples` parses; its help (COMMAND_HELP.examples) documents each. */
export const EXAMPLES_OPTIONS = Object.freeze({ out: { type: 'string' } } as const);

export async function examplesCommand(args: readonly string[], io: CliIo): Promise<number> {
  const { values } = parseCommandArguments('strata examples', args, EXAMPLES_OPTIONS);
  const given = values.out ?? DEFAULT_EXAMPLES_DIRECTORY;
  const out = resolve(io.cwd, given);
  for (const [name, run] of exampleRunners()) {
    const outDir = join(out, name);
    // Trace files are never overwritten: each run starts from an empty folder of its own.
    await rm(outDir, { recursive: true, force: true });
    io.stdout.write(`example ${name}: `);
    await run({ outDir });
    io.stdout.write(`traces in ${pathUnder(given, name)}\n`);
  }
  const runs = await readTraceDirectory(out);
  io.stdout.write(`\n${renderRuns(runs)}`);
  const report = join(out, 'report.html');
  await writeFile(report, await renderViewerHtml(runs));
  io.stdout.write(`\nviewer: ${pathUnder(given, 'report.html')} (self-contained; open it from the file system)\n`);
  return 0;
}
