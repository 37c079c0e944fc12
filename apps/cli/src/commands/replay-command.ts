// strata replay <file|dir>... : recorded runs replayed turn by turn through the
// assembler, every chosen policy side by side.
import { readdir, readFile, stat } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CACHE_PRICING, importTrajectories, TRAJECTORY_FORMATS, ContextInputError, type TrajectoryFormat } from '@strata/context';
import { createFileTraceSink } from '@strata/store';
import { CliInputError } from '../cli-input-error.js';
import { oneOf, parseCommandArguments, pathUnder, positiveInteger } from '../cli-arguments.js';
import { DEFAULT_REPLAY_WINDOW_TOKENS, usageOf } from '../cli-help.js';
import { progressBar, type CliIo } from '../cli-io.js';
import { POLICY_DESCRIPTIONS, REPLAY_POLICIES, RECOVERABLE_POLICIES, type ReplayPolicy } from '../replay/policy-turns.js';
import { policySummary, type OracleLike, type PolicySummary } from '../replay/replay-metrics.js';
import { REPLAY_ENCODINGS, replayTrajectories } from '../replay/replay-trajectories.js';

const TRAJECTORY_EXTENSIONS = ['.json', '.jsonl', '.traj'];

interface RunRecord {
  file: string;
  record: string;
  format: TrajectoryFormat;
  messages: number;
  policies: Partial<Record<ReplayPolicy, PolicySummary | { error: string }>>;
}

interface ReplayError {
  file: string;
  record: string | null;
  field: string | null;
  message: string;
}

/** The options `strata replay` parses; its help (COMMAND_HELP.replay) documents each. */
export const REPLAY_OPTIONS = Object.freeze({
  format: { type: 'string' },
  window: { type: 'string' },
  encoding: { type: 'string' },
  policy: { type: 'string', multiple: true },
  'trace-dir': { type: 'string' },
  oracle: { type: 'string' },
  json: { type: 'boolean' },
} as const);

export async function replayCommand(args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArguments('strata replay', args, REPLAY_OPTIONS);
  if (positionals.length === 0) throw new CliInputError({ culprit: 'file', message: `strata replay: name at least one trajectory file or directory\nusage: ${usageOf('replay')}`.split('\n')[0]! });
  const format = oneOf(values.format, '--format', ['auto', ...TRAJECTORY_FORMATS] as const, 'auto');
  const windowTokens = positiveInteger(values.window, '--window', DEFAULT_REPLAY_WINDOW_TOKENS);
  const encoding = oneOf(values.encoding, '--encoding', REPLAY_ENCODINGS, 'o200k');
  const policies = [...new Set((values.policy ?? [...REPLAY_POLICIES]).map((policy) => oneOf(policy, '--policy', REPLAY_POLICIES, 'raw')))];
  const oracle = await loadOracle(values.oracle, io);
  const traceDirectory = values['trace-dir'] === undefined ? undefined : resolve(io.cwd, values['trace-dir']);
  const sinks = new Map<ReplayPolicy, ReturnType<typeof createFileTraceSink>>();

  const files = await trajectoryFiles(positionals, io.cwd);
  const errors: ReplayError[] = [];
  const runs: RunRecord[] = [];
  const imported: Array<{ file: string; record: string; format: TrajectoryFormat; messages: import('@strata/context').CanonicalMessage[] }> = [];
  for (const { full, name } of files) {
    try {
      const result = importTrajectories(await readFile(full, 'utf8'), { format });
      for (const error of result.errors) errors.push(describe(name, error));
      for (const trajectory of result.trajectories) imported.push({ file: name, ...trajectory });
    } catch (error) {
      if (!ContextInputError.isInstance(error)) throw error;
      errors.push({ file: name, record: null, field: null, message: error.message });
    }
  }
  const progress = progressBar(io.stderr, imported.length);
  const ids = readableIds(imported);
  const byId = new Map(imported.map((trajectory, index) => [ids[index]!, trajectory]));
  const { total, assembled, compared } = await replayTrajectories({
    trajectories: imported.map((trajectory, index) => ({ id: ids[index]!, messages: trajectory.messages })),
    windowTokens,
    policies,
    encoding,
    oracle,
    onRunStart: (id) => progress.tick(`${byId.get(id)!.file} ${byId.get(id)!.record}`),
    onRun: (id, result) => {
      const trajectory = byId.get(id)!;
      const record: RunRecord = { file: trajectory.file, record: trajectory.record, format: trajectory.format, messages: trajectory.messages.length, policies: {} };
      for (const policy of policies) {
        const failure = result.failures.get(policy);
        if (failure !== undefined) {
          record.policies[policy] = { error: failure };
          errors.push({ file: trajectory.file, record: trajectory.record, field: null, message: `${policy}: ${failure}` });
        } else record.policies[policy] = policySummary(result.tallies.get(policy)!, result.tallies.get('raw'), RECOVERABLE_POLICIES.has(policy));
      }
      runs.push(record);
    },
    onTurn: traceDirectory
      ? async (policy, turn) => {
          if (!turn.trace) return;
          let sink = sinks.get(policy);
          if (!sink) sinks.set(policy, (sink = createFileTraceSink({ directory: join(traceDirectory, policy) })));
          await sink.write({ contextId: turn.trace.contextId, turn: turn.trace.turn, body: turn.trace });
        }
      : undefined,
  });
  progress.done();
  // Per policy, the runs it could not assemble (every policy listed, an empty list when it assembled all).
  const notAssembled = Object.fromEntries(
    policies.map((policy) => [
      policy,
      runs.flatMap((run) => {
        const summary = run.policies[policy];
        return summary !== undefined && 'error' in summary ? [{ file: run.file, record: run.record, message: summary.error }] : [];
      }),
    ]),
  );
  const report = {
    window: windowTokens,
    encoding,
    pricing: CACHE_PRICING,
    policies: Object.fromEntries(policies.map((policy) => [policy, POLICY_DESCRIPTIONS[policy]])),
    oracle: oracle !== undefined,
    runs,
    errors,
    compared: { ...compared, notAssembled },
    total,
    assembled,
  };
  // Nothing replayed, or every Strata policy failed on every record (a window too small, say): one line on stderr, exit 2; --json still prints the report, baselines included.
  const strataPolicies = policies.filter((policy) => RECOVERABLE_POLICIES.has(policy));
  const allFailed = runs.length > 0 && strataPolicies.length > 0 && runs.every((run) => strataPolicies.every((policy) => 'error' in (run.policies[policy] ?? {})));
  const nothing = errors.length > 0 && (runs.length === 0 || allFailed);
  if (nothing) {
    const first = errors[0]!;
    const more = errors.length > 1 ? ` (and ${errors.length - 1} more failures like it)` : '';
    io.stderr.write(`strata replay: ${[first.file, first.record, first.message].filter((part) => part !== null).join(': ')}${more}\n`);
  } else for (const error of errors) io.stderr.write(`strata replay: ${[error.file, error.record, error.message].filter((part) => part !== null).join(': ')}\n`);
  if (values.json) io.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  else if (!nothing) io.stdout.write(renderReport({ total, assembled, compared, notAssembled, windowTokens, encoding, oracle: oracle !== undefined }));
  return nothing ? 2 : errors.length > 0 ? 1 : 0;
}

function describe(file: string, error: ContextInputError): ReplayError {
  const [record, ...field] = error.culprit.split(': ');
  return { file, record: record ?? null, field: field.join(': ') || null, message: error.message };
}

/**
 * The files named, directories expanded (sorted, one level of .json / .jsonl
 * / .traj files): each as read (`full`) and as the user spelled it (`name`).
 */
async function trajectoryFiles(paths: readonly string[], cwd: string): Promise<Array<{ full: string; name: string }>> {
  const files: Array<{ full: string; name: string }> = [];
  for (const path of paths) {
    const full = resolve(cwd, path);
    let info;
    try {
      info = await stat(full);
    } catch {
      throw new CliInputError({ culprit: path, message: `strata replay: ${path}: no such file or directory` });
    }
    if (!info.isDirectory()) {
      files.push({ full, name: path });
      continue;
    }
    const names = (await readdir(full)).filter((name) => TRAJECTORY_EXTENSIONS.some((extension) => name.endsWith(extension))).sort();
    if (names.length === 0) throw new CliInputError({ culprit: path, message: `strata replay: ${path}: a directory with no trajectories (no ${TRAJECTORY_EXTENSIONS.join(', ')} files)` });
    files.push(...names.map((name) => ({ full: join(full, name), name: pathUnder(path, name) })));
  }
  return files;
}

/**
 * The provider-rules oracle: `--oracle FILE`, else `$STRATA_SHARED_DIR/tools/provider-rules.mjs`
 * or `../shared/tools/provider-rules.mjs`; absent, oracle figures are null.
 */
async function loadOracle(option: string | undefined, io: CliIo): Promise<OracleLike | undefined> {
  const candidates = option !== undefined ? [resolve(io.cwd, option)] : [io.env.STRATA_SHARED_DIR, resolve(io.cwd, '../shared')].filter((dir): dir is string => dir !== undefined).map((dir) => join(resolve(io.cwd, dir), 'tools', 'provider-rules.mjs'));
  const found = candidates.find((candidate) => existsSync(candidate));
  if (found === undefined) {
    if (option !== undefined) throw new CliInputError({ culprit: '--oracle', message: `--oracle ${option}: no such file` });
    return undefined;
  }
  return (await import(pathToFileURL(found).href)) as OracleLike;
}

const percent = (value: number | null) => (value === null ? '-' : `${(value * 100).toFixed(1)}%`);

/** One row per policy. */
function summaryTable(total: Record<string, PolicySummary>): string {
  const rows = Object.entries(total).map(([policy, summary]) => [
    policy,
    String(summary.runs),
    String(summary.turns),
    String(summary.inputTokens),
    percent(summary.reductionVsRaw),
    String(summary.cost.totalWithoutWritePremium),
    String(summary.cost.total),
    String(summary.overWindowTurns),
    percent(summary.prefixReuse),
    String(summary.compactions),
    `${summary.orphans}/${summary.splitUnits}`,
    `${percent(summary.anchorKept)}/${percent(summary.goalKept)}`,
    summary.recovery.share === null ? 'none' : percent(summary.recovery.share),
    `${percent(summary.laterUseRecall.share)} (${summary.laterUseRecall.missed} of ${summary.laterUseRecall.needed} missed)`,
    summary.oracleViolations === null ? '-' : String(summary.oracleViolations),
    `${summary.assemblyMs.p50 ?? '-'}/${summary.assemblyMs.p99 ?? '-'}`,
  ]);
  const header = ['policy', 'runs', 'turns', 'input tokens', 'vs raw', 'cost', 'cost w/ writes', 'over window', 'prefix reuse', 'compactions', 'orphans/split', 'anchor/goal', 'recovered', 'later-use recall', 'oracle', 'ms p50/p99'];
  return formatTable(header, rows);
}

function renderReport(options: {
  total: Record<string, PolicySummary>;
  assembled: Record<string, PolicySummary>;
  compared: { runs: number; of: number };
  notAssembled: Record<string, ReadonlyArray<{ file: string; record: string; message: string }>>;
  windowTokens: number;
  encoding: string;
  oracle: boolean;
}): string {
  const { compared } = options;
  const failing = Object.entries(options.notAssembled).filter(([, failures]) => failures.length > 0);
  const lines = [
    `${compared.of} runs, window ${options.windowTokens} tokens (${options.encoding}); cost in input-token units: the prefix equal to the previous request ${CACHE_PRICING.cachedToken}, the rest ${CACHE_PRICING.newToken} (w/ writes: the part the next request reuses ${CACHE_PRICING.cacheWriteToken}, as Anthropic bills cache writes)${options.oracle ? '' : '; provider-rules oracle not found (--oracle FILE)'}`,
  ];
  if (failing.length > 0) {
    lines.push(`compared over the ${compared.runs} of ${compared.of} runs every policy assembled; not assembled:`);
    for (const [policy, failures] of failing) lines.push(`  ${policy}: ${failures.length} of ${compared.of} (${failures.slice(0, 3).map((failure) => `${failure.file} ${failure.record}`).join(', ')}${failures.length > 3 ? ', ...' : ''})`);
  }
  lines.push(summaryTable(options.total));
  if (failing.length > 0) lines.push('', 'each policy over every run it assembled (vs raw over the same runs):', summaryTable(options.assembled));
  lines.push(
    'recovered: masked results read back byte-exact through read_tool_output; raw, last-n and clear-tool-uses keep no copy, so they have no way back.',
    "later-use recall: identifiers, numbers and paths each recorded answer used from earlier in its run (not the system prompt or the task), visible in that call's input or readable through a read_tool_output reference the input shows.",
    '',
  );
  return lines.join('\n');
}

/** Left-aligned columns, two spaces apart. */
export function formatTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((cell, column) => Math.max(cell.length, ...rows.map((row) => (row[column] ?? '').length)));
  const line = (row: readonly string[]) => row.map((cell, column) => cell.padEnd(widths[column]!)).join('  ').trimEnd();
  return [line(header), ...rows.map(line)].join('\n');
}

/**
 * A run id per trajectory that reads as a trace folder name: the file's name
 * without its folders and extension, then the record (`airline-tasks.3`),
 * other characters as `-`; later trajectories of the same name get `-2`,
 * `-3`, so ids stay distinct. No `%` escapes in the trace folders.
 */
export function readableIds(trajectories: readonly { readonly file: string; readonly record: string }[]): string[] {
  const seen = new Map<string, number>();
  return trajectories.map(({ file, record }) => {
    const stem = (file.split(/[\\/]/).at(-1) ?? file).replace(/\.[^.]*$/, '');
    const readable = (text: string) => text.replace(/[^A-Za-z0-9_.-]+/g, '-').replace(/^[.-]+|-+$/g, '');
    const base = [readable(stem), readable(record)].filter(Boolean).join('.') || 'trajectory';
    const count = (seen.get(base) ?? 0) + 1;
    seen.set(base, count);
    return count === 1 ? base : `${base}-${count}`;
  });
}
