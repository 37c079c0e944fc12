// One benchmark's runs in separate processes, merged into the figures the
// report shows: each number the median of the runs with their range, each
// target met only when it is met on every run.
import type { BenchCell, BenchResult, BenchTable, BenchTarget } from './bench-result.js';
import { median } from './measure.js';

/** What one process running one benchmark gave. */
export interface BenchRun {
  readonly durationSeconds: number;
  /** The machine's 1, 5 and 15-minute load averages when the process started. */
  readonly loadAverage: readonly number[];
  readonly result?: BenchResult;
  readonly printed?: string;
  readonly error?: string;
}

/** A number as a cell may hold it: plain, with thousands separators, or with a trailing `%` or `x`. */
const NUMERIC_CELL = /^(-?[\d,]*\.?\d+)(%|x)?$/;

interface NumericCell {
  readonly value: number;
  readonly decimals: number;
  readonly separators: boolean;
  readonly suffix: string;
}

function numeric(cell: BenchCell | undefined): NumericCell | undefined {
  if (typeof cell === 'number') return Number.isFinite(cell) ? { value: cell, decimals: decimalsOf(String(cell)), separators: false, suffix: '' } : undefined;
  if (typeof cell !== 'string') return undefined;
  const match = NUMERIC_CELL.exec(cell.trim());
  if (!match) return undefined;
  const digits = match[1]!;
  return { value: Number(digits.replace(/,/g, '')), decimals: decimalsOf(digits), separators: digits.includes(','), suffix: match[2] ?? '' };
}

function decimalsOf(text: string): number {
  const point = text.indexOf('.');
  return point < 0 ? 0 : text.length - point - 1;
}

function formatNumber(value: number, like: NumericCell): string {
  const digits = Math.min(6, like.decimals);
  const text = like.separators ? value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }) : value.toFixed(digits);
  return `${text}${like.suffix}`;
}

/**
 * One cell from every run's value: the value itself when the runs agree; the
 * median with the range (`1.20 (1.10-1.40)`) when they are numbers with the
 * same unit; else each run's value in order, separated by ` / `.
 */
export function mergeCell(values: readonly (BenchCell | undefined)[]): BenchCell {
  const first = values[0];
  if (values.every((value) => value === first)) return first ?? null;
  const numbers = values.map(numeric);
  if (numbers.every((cell): cell is NumericCell => cell !== undefined) && numbers.every((cell) => cell.suffix === numbers[0]!.suffix)) {
    const like = { ...numbers[0]!, decimals: Math.max(...numbers.map((cell) => cell.decimals)), separators: numbers.some((cell) => cell.separators) };
    const sorted = numbers.map((cell) => cell.value);
    return `${formatNumber(median(sorted), like)} (${formatNumber(Math.min(...sorted), like)}-${formatNumber(Math.max(...sorted), like)})`;
  }
  return values.map((value) => (value === undefined || value === null ? '-' : String(value))).join(' / ');
}

function mergeTables(results: readonly BenchResult[], notes: string[]): BenchTable[] {
  const [first] = results;
  return first!.tables.map((table, tableIndex) => {
    const tables = results.map((result) => result.tables[tableIndex]);
    if (tables.some((other) => other === undefined || other.title !== table.title || other.rows.length !== table.rows.length)) {
      notes.push(`"${table.title}" has other rows in some runs: the first run's are shown.`);
      return table;
    }
    const rows = table.rows.map((row, rowIndex) => {
      const columns = [...new Set(tables.flatMap((other) => Object.keys(other!.rows[rowIndex]!)))];
      return Object.fromEntries(columns.map((column) => [column, mergeCell(tables.map((other) => other!.rows[rowIndex]![column]))]));
    });
    return { title: table.title, rows };
  });
}

/** Each target by name, in the order the runs first give them: met only when every run gives it and meets it. */
function mergeTargets(results: readonly (BenchResult | undefined)[]): BenchTarget[] {
  const names = [...new Set(results.flatMap((result) => (result?.targets ?? []).map((target) => target.name)))];
  return names.map((name) => {
    const found = results.map((result) => result?.targets.find((target) => target.name === name));
    const measured = found.map((target) => target?.measured ?? 'not measured');
    const metRuns = found.filter((target) => target?.met === true).length;
    return {
      name,
      measured: measured.every((value) => value === measured[0]) ? measured[0]! : measured.join(' / '),
      met: metRuns === results.length,
      metRuns,
      runs: results.length,
    };
  });
}

/** The merged result of one benchmark's runs (`runs` in the order they ran; at least one). */
export function mergeRuns(runs: readonly BenchRun[]): Pick<BenchRun, 'result' | 'printed' | 'error'> & { readonly durationSeconds: number } {
  if (runs.length === 0) throw new RangeError('mergeRuns needs at least one run');
  const durationSeconds = median(runs.map((run) => run.durationSeconds));
  const errors = runs.flatMap((run, index) => (run.error === undefined ? [] : [runs.length === 1 ? run.error : `run ${index + 1}: ${run.error}`]));
  const error = errors.length === 0 ? undefined : errors.join('\n');
  const printedRuns = runs.map((run) => run.printed);
  const printed = printedRuns.every((text) => text === undefined)
    ? undefined
    : printedRuns.every((text) => text === printedRuns[0])
      ? printedRuns[0]
      : printedRuns.map((text, index) => `--- run ${index + 1} ---\n${text ?? ''}`).join('\n');
  const results = runs.map((run) => run.result);
  const measured = results.filter((result): result is BenchResult => result !== undefined && result.skipped === undefined);
  const base = results.find((result) => result !== undefined);
  if (base === undefined) return { durationSeconds, printed, error };
  if (measured.length === 0) return { durationSeconds, printed, error, result: base };
  const notes: string[] = [];
  const tables = mergeTables(measured, notes);
  const runNotes = [...new Set(measured.flatMap((result) => result.notes))];
  return { durationSeconds, printed, error, result: { title: base.title, method: measured[0]!.method, tables, targets: mergeTargets(results), notes: [...runNotes, ...notes] } };
}
