// @strata/cli: the `strata` command, callable in-process (tests, other tools).

// The command line
export { runCli, USAGE } from './run-cli.js';
export { processIo, type CliIo } from './cli-io.js';
export { CliInputError } from './cli-input-error.js';

// Traces and the viewer
export { readTraceDirectory, type TraceRun } from './trace/read-traces.js';
export { renderViewerHtml } from './viewer/render-viewer.js';
