// Small helpers shared by the benchmarks.

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

export function percentile(values: readonly number[], share: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * share))]!;
}

/** Milliseconds one call of `work` takes. */
export function time(work: () => void): number {
  const start = performance.now();
  work();
  return performance.now() - start;
}

export async function timeAsync(work: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await work();
  return performance.now() - start;
}

export function table(rows: ReadonlyArray<Record<string, string | number>>): void {
  console.table(rows);
}
