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

/**
 * Times `subject` and `peer` alternately, `rounds` times each after `warmup`
 * rounds, so a machine loaded by other work slows both alike; returns each
 * one's median milliseconds and their ratio.
 */
export function interleaved(options: { subject: () => void; peer: () => void; rounds: number; warmup: number }): { subjectMs: number; peerMs: number; ratio: number } {
  const subject: number[] = [];
  const peer: number[] = [];
  for (let round = 0; round < options.warmup + options.rounds; round += 1) {
    const subjectMs = time(options.subject);
    const peerMs = time(options.peer);
    if (round < options.warmup) continue;
    subject.push(subjectMs);
    peer.push(peerMs);
  }
  const subjectMs = median(subject);
  const peerMs = median(peer);
  return { subjectMs, peerMs, ratio: subjectMs / peerMs };
}

/** A number with a fixed count of decimals, for a table cell. */
export function fixed(value: number, digits: number): string {
  return value.toFixed(digits);
}

export function percent(share: number, digits = 1): string {
  return `${(share * 100).toFixed(digits)}%`;
}

/** Prints a table to the terminal as it is produced. */
export function table(rows: ReadonlyArray<Record<string, unknown>>): void {
  console.table(rows);
}
