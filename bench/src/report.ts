// The report `npm run bench` writes: every benchmark's result with the
// machine, Node and package versions and the date, as JSON and Markdown.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, platform, release, totalmem } from 'node:os';
import { join } from 'node:path';
import type { BenchCell, BenchResult } from './bench-result.js';
import type { BenchRun } from './merge-runs.js';

/** The published packages the benchmarks run as peers. */
export const PEER_PACKAGES = Object.freeze(['gpt-tokenizer', 'js-tiktoken', 'tokenx', '@langchain/core', 'ai']);

export interface BenchEntry {
  readonly name: string;
  /** Seconds it ran (the median of its runs). */
  readonly durationSeconds: number;
  /** What the benchmark returned (its runs merged: `mergeRuns`); absent when it returned nothing (see `printed`) or threw (see `error`). */
  readonly result?: BenchResult;
  /** The output of a benchmark that prints its figures instead of returning them. */
  readonly printed?: string;
  readonly error?: string;
  /** Each separate process's own figures, in the order they ran (absent for a benchmark run in this process). */
  readonly runs?: readonly BenchRun[];
}

export interface BenchReport {
  readonly format: 'strata.bench-report';
  /** 2: benchmarks run in separate processes, `runs` times each, merged. */
  readonly version: 2;
  /** How many separate processes ran each benchmark. */
  readonly runs: number;
  readonly date: string;
  readonly commit: string | undefined;
  readonly machine: {
    readonly cpu: string;
    readonly cores: number;
    readonly memoryGiB: number;
    readonly os: string;
    /** 1, 5 and 15-minute load averages when the run started (each benchmark's runs record their own). */
    readonly loadAverage: readonly number[];
  };
  readonly node: string;
  /** Our workspace packages and the peers, name to installed version. */
  readonly packages: Readonly<Record<string, string>>;
  readonly benchmarks: readonly BenchEntry[];
}

export function describeEnvironment(repositoryRoot: string): Omit<BenchReport, 'format' | 'version' | 'runs' | 'benchmarks'> {
  const processor = cpus();
  return {
    date: new Date().toISOString(),
    commit: gitCommit(repositoryRoot),
    machine: {
      cpu: processor[0]?.model.trim() ?? 'unknown',
      cores: processor.length,
      memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
      os: `${platform()} ${release()}`,
      loadAverage: loadavg().map((value) => Math.round(value * 100) / 100),
    },
    node: process.version,
    packages: packageVersions(repositoryRoot),
  };
}

function gitCommit(repositoryRoot: string): string | undefined {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: repositoryRoot, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return undefined;
  }
}

function versionAt(path: string): { name: string; version: string } | undefined {
  if (!existsSync(path)) return undefined;
  const manifest = JSON.parse(readFileSync(path, 'utf8')) as { name?: string; version?: string };
  return manifest.name && manifest.version ? { name: manifest.name, version: manifest.version } : undefined;
}

function packageVersions(repositoryRoot: string): Record<string, string> {
  const versions: Record<string, string> = {};
  for (const top of ['packages', 'apps']) {
    const directory = join(repositoryRoot, top);
    if (!existsSync(directory)) continue;
    for (const name of readdirSync(directory).sort()) {
      const found = versionAt(join(directory, name, 'package.json'));
      if (found) versions[found.name] = found.version;
    }
  }
  for (const peer of PEER_PACKAGES) {
    const found = versionAt(join(repositoryRoot, 'node_modules', peer, 'package.json'));
    versions[peer] = found?.version ?? 'not installed';
  }
  return versions;
}

/** Targets met on every run, and on each run alone (from the runs' own results), over all benchmarks. */
export function targetTally(report: BenchReport): { total: number; metOnAll: number; metPerRun: number[] } {
  const targets = report.benchmarks.flatMap((entry) => entry.result?.targets ?? []);
  const metPerRun = Array.from({ length: report.runs }, (_, run) =>
    report.benchmarks.reduce((sum, entry) => {
      const own = entry.runs?.[run]?.result?.targets ?? (report.runs === 1 ? entry.result?.targets : undefined) ?? [];
      return sum + own.filter((target) => target.met).length;
    }, 0),
  );
  return { total: targets.length, metOnAll: targets.filter((target) => target.met).length, metPerRun };
}

const loadOf = (run: BenchRun) => run.loadAverage[0]?.toFixed(2) ?? '?';

/** The report as Markdown: one section per benchmark, its targets first, then its tables. */
export function renderMarkdown(report: BenchReport): string {
  const tally = targetTally(report);
  const lines: string[] = [
    '# Benchmarks: latest run',
    '',
    `\`npm run bench\` on ${report.date.slice(0, 10)} (${report.date}), commit ${report.commit ?? 'unknown'}.`,
    `Machine: ${report.machine.cpu}, ${report.machine.cores} cores, ${report.machine.memoryGiB} GiB, ${report.machine.os}; load average at the start ${report.machine.loadAverage.join(' / ')}. Node ${report.node}.`,
    `Peers: ${PEER_PACKAGES.map((peer) => `${peer} ${report.packages[peer] ?? 'not installed'}`).join(', ')}.`,
    `Each benchmark ran in ${report.runs} separate process${report.runs === 1 ? '' : 'es'} (\`node --expose-gc\`, one benchmark each, every benchmark's first run before any second); a figure that differs between runs is their median with the range, a target is met only if it is met on every run. Speed comparisons are CPU time of this process, subject and peer alternating, garbage collected before each warm measure; each section gives the 1-minute load average at the start of each run.`,
    'Each comparison runs the peer as its published package, in the same process, on the same input.',
    'The same figures as data, with every run\'s own: [`latest.json`](latest.json).',
    '',
  ];
  const targets = report.benchmarks.flatMap((entry) => (entry.result?.targets ?? []).map((target) => ({ benchmark: entry.name, ...target })));
  if (targets.length > 0) {
    lines.push(`## Targets`, '', `${tally.metOnAll} of ${tally.total} met on all ${report.runs} run${report.runs === 1 ? '' : 's'}${report.runs > 1 ? ` (each run alone: ${tally.metPerRun.join(', ')})` : ''}.`, '');
    lines.push('| benchmark | target | measured | met |', '|---|---|---|---|');
    for (const target of targets) {
      const met = target.met ? 'yes' : target.runs !== undefined && target.runs > 1 ? `**no** (${target.metRuns ?? 0} of ${target.runs})` : '**no**';
      lines.push(`| ${target.benchmark} | ${escapeCell(target.name)} | ${escapeCell(target.measured)} | ${met} |`);
    }
    lines.push('');
  }
  for (const entry of report.benchmarks) {
    const runs = entry.runs ?? [];
    const ran = runs.length > 1 ? `Ran in ${runs.map((run) => run.durationSeconds.toFixed(1)).join(' / ')} s; load average at the start ${runs.map(loadOf).join(' / ')}.` : runs.length === 1 ? `Ran in ${entry.durationSeconds.toFixed(1)} s; load average at the start ${loadOf(runs[0]!)}.` : `Ran in ${entry.durationSeconds.toFixed(1)} s.`;
    lines.push(`## ${entry.name}${entry.result ? `: ${entry.result.title}` : ''}`, '', ran, '');
    if (entry.error !== undefined) lines.push(`**Failed:** ${entry.error}`, '');
    if (entry.printed !== undefined) lines.push('This benchmark prints its figures instead of returning them:', '', '```text', entry.printed.trimEnd(), '```', '');
    const result = entry.result;
    if (result === undefined) continue;
    if (result.skipped !== undefined) {
      lines.push(`Skipped: ${result.skipped}`, '');
      continue;
    }
    if (result.method) lines.push(result.method, '');
    for (const table of result.tables) lines.push(...renderTable(table.title, table.rows), '');
    for (const note of result.notes) lines.push(`- ${note}`);
    if (result.notes.length > 0) lines.push('');
  }
  return `${lines.join('\n').trimEnd()}\n`;
}

function renderTable(title: string, rows: readonly Readonly<Record<string, BenchCell>>[]): string[] {
  if (rows.length === 0) return [`**${title}**: no rows.`];
  const columns = [...new Set(rows.flatMap((row) => Object.keys(row)))];
  return [
    `**${title}**`,
    '',
    `| ${columns.map(escapeCell).join(' | ')} |`,
    `|${columns.map(() => '---').join('|')}|`,
    ...rows.map((row) => `| ${columns.map((column) => escapeCell(formatCell(row[column]))).join(' | ')} |`),
  ];
}

function formatCell(value: BenchCell | undefined): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'number') return Number.isInteger(value) ? value.toLocaleString('en-US') : String(value);
  return String(value);
}

function escapeCell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

/** Writes `latest.json` and `latest.md` into `directory`. */
export function writeReport(report: BenchReport, directory: string): void {
  mkdirSync(directory, { recursive: true });
  writeFileSync(join(directory, 'latest.json'), `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(join(directory, 'latest.md'), renderMarkdown(report));
}
