// @strata/cli: the `strata` command, callable in-process (tests, other tools).

// The command line
export { runCli, USAGE, type RunCliOptions } from './run-cli.js';
export { CLI_COMMANDS, type CliCommand, type CliCommands } from './cli-commands.js';
export type { CommandHelp } from './cli-help.js';
export { processIo, type CliIo } from './cli-io.js';
export { CliInputError } from './cli-input-error.js';

// Traces and the viewer
export { readTraceDirectory, type TraceRun } from './trace/read-traces.js';
export { renderViewerHtml } from './viewer/render-viewer.js';

// Replay measures (what `strata replay` prints), in-process
export { replayTrajectories, REPLAY_ENCODINGS, type ReplayEncoding, type ReplayTrajectoriesOptions, type ReplayTrajectoriesResult } from './replay/replay-trajectories.js';
export { REPLAY_POLICIES, type ReplayPolicy } from './replay/policy-turns.js';
export type { PolicySummary } from './replay/replay-metrics.js';
