// What every benchmark returns: its figures as data, from which the harness
// writes bench/results/latest.json and latest.md.

export interface BenchOptions {
  /** `full`: the published figures. `smoke`: tiny inputs, a few seconds in all, so `npm test` keeps the harness working. */
  readonly size: 'full' | 'smoke';
}

export type BenchCell = string | number | boolean | null;

/** One table: rows of named cells; the first row's keys give the column order. */
export interface BenchTable {
  readonly title: string;
  readonly rows: readonly Readonly<Record<string, BenchCell>>[];
}

/** A target of the issue, with what was measured against it. */
export interface BenchTarget {
  readonly name: string;
  /** The figure that decides it, with its unit or ratio ("1.4x the plain sort"). */
  readonly measured: string;
  /** Across separate processes: true only when met on every run. */
  readonly met: boolean;
  /** Set when runs were merged: on how many of `runs` it was met. */
  readonly metRuns?: number;
  readonly runs?: number;
}

export interface BenchResult {
  readonly title: string;
  /** The inputs, the peers and how they were run, in a sentence or two. */
  readonly method: string;
  readonly tables: readonly BenchTable[];
  readonly targets: readonly BenchTarget[];
  readonly notes: readonly string[];
  /** Why nothing was measured (`../shared` absent, no server configured); tables are then empty. */
  readonly skipped?: string;
}

/**
 * A benchmark module: `bench/src/<name>.bench.ts` exporting `run`. A `run`
 * that declares its options parameter is also smoke-run by `npm test`
 * (`bench.smoke.test.ts`); one that takes none and prints is still run by
 * `npm run bench`, its printed output kept in the report.
 */
export interface BenchModule {
  run(options: BenchOptions): Promise<BenchResult | void>;
}

export function skippedResult(title: string, reason: string): BenchResult {
  return { title, method: '', tables: [], targets: [], notes: [], skipped: reason };
}
