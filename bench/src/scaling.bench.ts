// Assembly cost as the history grows: one dynamic turn over 1,000, 10,000 and
// 100,000 real messages (tau-bench runs chained with real SWE-agent steps),
// cold (a fresh assembler and fresh message objects) and warm (one message
// appended to the previous turn's history), with the heap after the warm turns.
import { ConservativeTokenEstimator, ContextContributorRegistry, createContextAssembler, resolveContextBudget, type CanonicalMessage } from '@strata/context';
import { loadSweAgentConversations, loadTauBenchConversations, withCallIdSuffix } from '@strata/testing';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { skippedResult, type BenchOptions, type BenchResult } from './bench-result.js';
import { collectGarbage, cpuTimeAsync, fixed, median } from './measure.js';

const SIZES: Record<BenchOptions['size'], readonly number[]> = { full: [1_000, 10_000, 100_000], smoke: [100, 200] };
const WARM_TURNS: Record<BenchOptions['size'], number> = { full: 60, smoke: 3 };
const TITLE = 'Assembly as the history grows: cold and warm turns, heap';

/** `size` real messages: tau-bench runs, each followed by real SWE-agent steps with fresh call ids. */
export function chainedHistory(size: number, warmTurns: number = WARM_TURNS.full): CanonicalMessage[] | undefined {
  const runs = loadTauBenchConversations();
  const swe = loadSweAgentConversations();
  if (!runs || !swe) return undefined;
  const steps = swe[2]!.messages.filter((message) => message.role === 'assistant' || message.role === 'tool');
  const history: CanonicalMessage[] = [runs[0]!.messages[0]!];
  let step = 0;
  for (let round = 0; history.length < size; round += 1) {
    for (const message of runs[round % runs.length]!.messages) {
      if (message.role === 'system') continue;
      const renamed = withCallIdSuffix(message, `_${round}`);
      // Fresh objects every round, as a real history has.
      history.push(renamed === message ? { ...message } : renamed);
    }
    for (let pair = 0; pair < 5; pair += 1) {
      while (steps[step % steps.length]!.role !== 'assistant' || !(steps[step % steps.length] as { toolCalls?: unknown }).toolCalls) step += 1;
      const call = steps[step % steps.length] as Extract<CanonicalMessage, { role: 'assistant' }>;
      const result = steps[(step + 1) % steps.length]!;
      step += 2;
      if (result.role !== 'tool') continue;
      const id = `swe_${history.length}`;
      history.push({ ...call, toolCalls: [{ ...call.toolCalls![0]!, id }] }, { ...result, toolCallId: id });
    }
  }
  return history.slice(0, size + warmTurns);
}

/** Appends to `history`, in place, the messages of `all` after it up to `length` (as `all.slice(0, length)` would hold; `all` may be shorter). */
function growTo(history: CanonicalMessage[], all: readonly CanonicalMessage[], length: number): void {
  while (history.length < Math.min(length, all.length)) history.push(all[history.length]!);
}

/** Keeps a value alive up to this call (so a heap reading after it still counts what it holds). */
function keep(value: unknown): void {
  if (value === null) throw new Error('unreachable');
}

function assembler() {
  const registry = new ContextContributorRegistry();
  registry.register({ id: 'identity', scopes: ['main'], required: true, contribute: () => ({ sections: [{ id: 'identity', slot: 'identity', content: 'You are an airline agent.' }] }) });
  return createContextAssembler({ registry, budget: resolveContextBudget({ inputCapTokens: 111_616 }), estimator: new ConservativeTokenEstimator({ family: 'o200k' }) });
}

/** A field of /proc/self/status in bytes (`VmRSS`, `VmHWM`: the resident set now and its peak), NaN where there is none. */
function statusBytes(field: 'VmRSS' | 'VmHWM'): number {
  try {
    const line = readFileSync('/proc/self/status', 'utf8').split('\n').find((candidate) => candidate.startsWith(`${field}:`));
    return line === undefined ? Number.NaN : Number(/(\d+)\s*kB/.exec(line)?.[1] ?? Number.NaN) * 1024;
  } catch {
    return Number.NaN;
  }
}

/** Memory measured alone in a child process: `node --expose-gc scaling.bench.js --memory <messages> <warm turns>`. */
const MEMORY_FLAG = '--memory';

/**
 * The heap in use once garbage collection frees no more: collected until a
 * collection frees less than 64 KB (at most 10 times), since one collection
 * can leave weakly held entries and lazily swept pages to the next.
 */
function settledHeapBytes(): number {
  let heap = process.memoryUsage().heapUsed;
  for (let collection = 0; collection < 10 && collectGarbage(); collection += 1) {
    const after = process.memoryUsage().heapUsed;
    const freed = heap - after;
    heap = after;
    if (freed < 64 * 1024) break;
  }
  return heap;
}

interface MemoryReading {
  /** The resident set's peak over the floor, in bytes (NaN where Linux's /proc is absent). */
  readonly peakRssBytes: number;
  /** The settled heap after the warm turns, the assembler alive, less the settled heap before it was made, per message. */
  readonly retainedPerMessage: number;
}

/**
 * In this (child) process: one assembler takes a cold turn over `size`
 * messages and `warmTurns` warm ones. The floor is this fresh process with
 * the history and one copy of it (the slice handed in), after a warm-up turn
 * of another assembler on copies of a few messages, its garbage collected
 * until settled; the resident set's peak is counted from there
 * (writing 5 to /proc/self/clear_refs resets it), and the heap the
 * assembler keeps is the settled heap after the turns less the floor's.
 */
async function memoryOverFloor(size: number, warmTurns: number): Promise<MemoryReading> {
  const all = chainedHistory(size, warmTurns);
  if (!all) return { peakRssBytes: Number.NaN, retainedPerMessage: Number.NaN };
  const base = all.slice(0, size);
  // A warm-up turn on copies of a few messages, its assembler dropped: code compiled and tables built on first use are
  // the module's, once per process, not memory kept per message.
  await assembler().assemble({ contextId: 'warm-up', turn: 1, history: structuredClone(all.slice(0, 200)), tools: [] });
  const floorHeap = settledHeapBytes();
  const floorRss = statusBytes('VmRSS');
  let peakMeasured = true;
  try {
    writeFileSync('/proc/self/clear_refs', '5');
  } catch {
    peakMeasured = false;
  }
  const subject = assembler();
  let state = (await subject.assemble({ contextId: 'scale', turn: 1, history: base, tools: [] })).state;
  for (let turn = 1; turn <= warmTurns; turn += 1) {
    // The caller's array grown in place, as a host loop appends to its history: a copy per turn would be the harness's garbage.
    growTo(base, all, size + turn);
    state = (await subject.assemble({ contextId: 'scale', turn: turn + 1, history: base, tools: [], state })).state;
  }
  const peakRssBytes = peakMeasured ? statusBytes('VmHWM') - floorRss : Number.NaN;
  const retainedPerMessage = (settledHeapBytes() - floorHeap) / size;
  keep(subject);
  keep(state);
  return { peakRssBytes, retainedPerMessage };
}

/** `memoryOverFloor` in a fresh process, so what this one holds (the other sizes, the cold turns, their garbage) is not in it. */
function memoryInChild(size: number, warmTurns: number): MemoryReading {
  const child = spawnSync(process.execPath, ['--expose-gc', fileURLToPath(import.meta.url), MEMORY_FLAG, String(size), String(warmTurns)], { encoding: 'utf8', env: process.env });
  try {
    const reading = JSON.parse(child.stdout.trim().split('\n').at(-1) ?? '') as Partial<MemoryReading>;
    if (child.status === 0) return { peakRssBytes: Number(reading.peakRssBytes ?? Number.NaN), retainedPerMessage: Number(reading.retainedPerMessage ?? Number.NaN) };
  } catch {
    // No reading: NaN below.
  }
  return { peakRssBytes: Number.NaN, retainedPerMessage: Number.NaN };
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv[2] === MEMORY_FLAG) {
  // JSON has no NaN: a missing reading goes out as null and comes back as NaN.
  console.log(JSON.stringify(await memoryOverFloor(Number(process.argv[3]), Number(process.argv[4]))));
}

export async function run(options: BenchOptions): Promise<BenchResult> {
  const sizes = SIZES[options.size];
  const warmTurns = WARM_TURNS[options.size];
  const largest = chainedHistory(sizes.at(-1)!, warmTurns);
  if (!largest) return skippedResult(TITLE, '../shared is absent (set STRATA_SHARED_DIR)');
  const rows = [];
  const warmBySize = new Map<number, number>();
  const retainedBySize = new Map<number, number>();
  const coldBySize = new Map<number, number>();
  let peakOverFloor = Number.NaN;
  for (const size of sizes) {
    const all = largest.slice(0, size + warmTurns);
    const base = all.slice(0, size);
    const cold = await cpuTimeAsync(() => assembler().assemble({ contextId: 'scale', turn: 1, history: structuredClone(base), tools: [] }));
    // The caller's array the warm turns grow in place (one message a turn).
    const history = base.slice();
    const subject = assembler();
    // Each turn is given the context state the last one returned, as every caller passes it.
    let state = (await subject.assemble({ contextId: 'scale', turn: 1, history, tools: [] })).state;
    // What the cold turns left behind is collected first: the warm turns pay only for their own garbage.
    collectGarbage();
    const warms: number[] = [];
    for (let turn = 1; turn <= warmTurns; turn += 1) {
      growTo(history, all, size + turn);
      warms.push(await cpuTimeAsync(async () => void (state = (await subject.assemble({ contextId: 'scale', turn: turn + 1, history, tools: [], state })).state)));
    }
    const warm = median(warms);
    // What the assembler keeps of the context between turns, per message, measured in a fresh process of its own.
    const memory = memoryInChild(size, warmTurns);
    keep(subject);
    retainedBySize.set(size, memory.retainedPerMessage);
    if (size === sizes.at(-1)) peakOverFloor = memory.peakRssBytes;
    warmBySize.set(size, warm);
    coldBySize.set(size, cold);
    rows.push({
      messages: size,
      'cold (ms)': fixed(cold, 1),
      'cold per 1,000 messages (ms)': fixed((cold / size) * 1000, 2),
      'warm p50 (ms)': fixed(warm, 3),
      [`warm / warm at ${sizes[0]!.toLocaleString('en-US')}`]: fixed(warm / warmBySize.get(sizes[0]!)!, 1),
      'heap used (MB)': Math.round(process.memoryUsage().heapUsed / 2 ** 20),
      'retained per message (bytes)': Number.isNaN(memory.retainedPerMessage) ? 'n/a' : Math.round(memory.retainedPerMessage),
    });
  }
  const smallest = warmBySize.get(sizes[0]!)!;
  const ratioAt = (size: number) => (warmBySize.get(size) ?? Number.NaN) / smallest;
  const targets =
    options.size === 'full'
      ? [
          { name: 'warm turn at 10,000 messages within 2x of 1,000', measured: `${fixed(ratioAt(10_000), 1)}x`, met: ratioAt(10_000) <= 2 },
          { name: 'warm turn at 100,000 messages within 10x of 1,000', measured: `${fixed(ratioAt(100_000), 1)}x`, met: ratioAt(100_000) <= 10 },
          { name: 'warm turn at 100,000 messages within 2x of 1,000 (issue 24)', measured: `${fixed(ratioAt(100_000), 1)}x`, met: ratioAt(100_000) <= 2 },
          {
            name: 'retained memory at most 100 bytes per message at 100,000 (issue 24)',
            measured: `${Math.round(retainedBySize.get(100_000) ?? Number.NaN)} bytes`,
            met: (retainedBySize.get(100_000) ?? Number.POSITIVE_INFINITY) <= 100,
          },
          {
            name: 'peak RSS at most 50 MB over the floor (the history and one copy) over the turns at 100,000 messages (issue 24)',
            measured: Number.isNaN(peakOverFloor) ? 'n/a (no /proc/self/clear_refs)' : `${fixed(peakOverFloor / 2 ** 20, 1)} MB`,
            met: peakOverFloor <= 50 * 2 ** 20,
          },
          {
            name: 'cold turn linear in history size (per-message cost at 100,000 within 2x of 1,000)',
            measured: `${fixed(coldBySize.get(100_000)! / 100 / coldBySize.get(1_000)!, 2)}x per message`,
            met: coldBySize.get(100_000)! / 100 / coldBySize.get(1_000)! <= 2,
          },
        ]
      : [];
  return {
    title: TITLE,
    method: `Real messages (tau-bench runs chained with real SWE-agent steps, fresh call ids); one dynamic turn with a 111,616-token input cap and the conservative estimator. Times are CPU time. Cold: a fresh assembler and fresh message objects. Warm: garbage collected first, the median of ${warmTurns} turns, each with one message appended to the caller's array in place (as a host loop appends to its history; a copy of it per turn would be the harness's garbage, not the assembler's). Heap: after the warm turns. Retained per message and peak RSS: in a fresh child process per size, from a floor with the history and one copy of it built, one warm-up turn taken on copies of its first 200 messages (code compiled on first use is the process's, not kept per message) and garbage collected until a collection frees less than 64 KB; retained is the heap after a cold turn and the ${warmTurns} warm turns (collected the same way, the assembler alive) less the floor's heap, over the history's messages; peak RSS is VmHWM (reset by writing 5 to /proc/self/clear_refs at the floor) less VmRSS at the floor, over those turns (the copy grown in place, a message a turn), reported at ${sizes.at(-1)!.toLocaleString('en-US')} messages.`,
    tables: [{ title: 'one turn by history size', rows }],
    targets,
    notes: [],
  };
}
