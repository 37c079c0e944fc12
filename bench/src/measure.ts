// Small helpers shared by the benchmarks.

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

export function percentile(values: readonly number[], share: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * share))]!;
}

/** Wall-clock milliseconds one call of `work` takes (for latency a user waits on; compare speeds with `cpuTime`). */
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

/** CPU milliseconds since `start` (a `process.cpuUsage()` reading): user plus system time of this process. */
function cpuSince(start: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

/**
 * CPU milliseconds (user + system, this process) one call of `work` takes:
 * other work on the machine does not count, as it does in wall-clock time.
 */
export function cpuTime(work: () => void): number {
  const start = process.cpuUsage();
  work();
  return cpuSince(start);
}

/** `cpuTime` for asynchronous work; nothing else may run in the process meanwhile (a benchmark runs alone in its own). */
export async function cpuTimeAsync(work: () => Promise<unknown>): Promise<number> {
  const start = process.cpuUsage();
  await work();
  return cpuSince(start);
}

/**
 * Collects the young generation (a scavenge, about a millisecond) where node
 * was started with `--expose-gc`, untimed before a subject's turn: the
 * short-lived garbage the one before it left is then not collected in its
 * time. (A full collection before each turn would cost
 * more than the turns.) Elsewhere does nothing.
 */
export function collectYoungGarbage(): void {
  const gc = (globalThis as { gc?: (options?: { type: 'minor'; execution: 'sync' }) => void }).gc;
  if (typeof gc === 'function') gc({ type: 'minor', execution: 'sync' });
}

/**
 * Collects garbage where node was started with `--expose-gc` (as `npm run
 * bench` starts every benchmark), so a warm measure does not pay for what an
 * earlier one left behind; elsewhere (the smoke test) does nothing. Returns
 * whether it collected.
 */
export function collectGarbage(): boolean {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (typeof gc !== 'function') return false;
  gc();
  return true;
}

/**
 * Times `subject` and `peer` alternately in CPU time, `rounds` times each
 * after `warmup` rounds, the order swapped every round so neither always runs
 * first; garbage is collected once, after the warm-up, before the timed
 * rounds (a collection before every round would leave its sweeping and cold
 * caches to whichever runs next). Returns each one's median CPU milliseconds
 * and their ratio.
 */
export function interleaved(options: { subject: () => void; peer: () => void; rounds: number; warmup: number }): { subjectMs: number; peerMs: number; ratio: number } {
  const subject: number[] = [];
  const peer: number[] = [];
  for (let round = 0; round < options.warmup + options.rounds; round += 1) {
    if (round === options.warmup) collectGarbage();
    let subjectMs: number;
    let peerMs: number;
    if (round % 2 === 0) {
      subjectMs = cpuTime(options.subject);
      peerMs = cpuTime(options.peer);
    } else {
      peerMs = cpuTime(options.peer);
      subjectMs = cpuTime(options.subject);
    }
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
