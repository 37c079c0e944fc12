// The report `npm run bench` writes: every benchmark's result with the
// machine, Node and package versions and the date, as JSON and Markdown.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, platform, release, totalmem } from 'node:os';
import { join } from 'node:path';
import type { BenchCell, BenchResult } from './bench-result.js';

/** The published packages the benchmarks run as peers. */
export const PEER_PACKAGES = Object.freeze(['gpt-tokenizer', 'js-tiktoken', 'tokenx', '@langchain/core', 'ai']);

export interface BenchEntry {
  readonly name: string;
  readonly durationSeconds: number;
  /** What the benchmark returned; absent when it returned nothing (see `printed`) or threw (see `error`). */
  readonly result?: BenchResult;
  /** The output of a benchmark that prints its figures instead of returning them. */
  readonly printed?: string;
  readonly error?: string;
}

export interface BenchReport {
  readonly format: 'strata.bench-report';
  readonly version: 1;
  readonly date: string;
  readonly commit: string | undefined;
  readonly machine: {
    readonly cpu: string;
    readonly cores: number;
    readonly memoryGiB: number;
    readonly os: string;
    /** 1, 5 and 15-minute load averages when the run started: other work on the machine slows every figure alike. */
    readonly loadAverage: readonly number[];
  };
  readonly node: string;
  /** Our workspace packages and the peers, name to installed version. */
  readonly packages: Readonly<Record<string, string>>;
  readonly benchmarks: readonly BenchEntry[];
}

export function describeEnvironment(repositoryRoot: string): Omit<BenchReport, 'format' | 'version' | 'benchmarks'> {
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

/** The report as Markdown: one section per benchmark, its targets first, then its tables. */
export function renderMarkdown(report: BenchReport): string {
  const lines: string[] = [
    '# Benchmarks: latest run',
    '',
    `\`npm run bench\` on ${report.date.slice(0, 10)} (${report.date}), commit ${report.commit ?? 'unknown'}.`,
    `Machine: ${report.machine.cpu}, ${report.machine.cores} cores, ${report.machine.memoryGiB} GiB, ${report.machine.os}; load average at the start ${report.machine.loadAverage.join(' / ')}. Node ${report.node}.`,
    `Peers: ${PEER_PACKAGES.map((peer) => `${peer} ${report.packages[peer] ?? 'not installed'}`).join(', ')}.`,
    'Each comparison runs the peer as its published package, in the same process, on the same input; timings alternate subject and peer, so load on the machine slows both alike.',
    'The same figures as data: [`latest.json`](latest.json).',
    '',
  ];
  const targets = report.benchmarks.flatMap((entry) => (entry.result?.targets ?? []).map((target) => ({ benchmark: entry.name, ...target })));
  if (targets.length > 0) {
    lines.push('## Targets', '', '| benchmark | target | measured | met |', '|---|---|---|---|');
    for (const target of targets) lines.push(`| ${target.benchmark} | ${escapeCell(target.name)} | ${escapeCell(target.measured)} | ${target.met ? 'yes' : '**no**'} |`);
    lines.push('');
  }
  for (const entry of report.benchmarks) {
    lines.push(`## ${entry.name}${entry.result ? `: ${entry.result.title}` : ''}`, '', `Ran in ${entry.durationSeconds.toFixed(1)} s.`, '');
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
