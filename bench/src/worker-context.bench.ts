// Worker prompt assembly from a large blackboard: assembleWorkerContextSections
// (rendered flat, as assembleWorkerContext does) for the narrator worker of the
// seed's worked example over 1,000 / 10,000 / 100,000 entries, against one pass
// over the same entries that keeps the newest entry of each tag (the least any
// assembly from an entry list must do: every entry is looked at once), timed
// alternately in this process. Target (issue 24): at 100,000 entries, at most
// 3x the one-pass scan.
import { assembleWorkerContextSections, flattenWorkerContext, resolveWorkerContract, type BlackboardEntry } from '@strata/blackboard';
import { WORKED_SHARED_CONTEXT, workedEntries, workedSkills } from '@strata/testing';
import type { BenchOptions, BenchResult } from './bench-result.js';
import { fixed, interleaved } from './measure.js';

const TITLE = 'assembleWorkerContext over a large blackboard';
const SIZES: Record<BenchOptions['size'], readonly number[]> = { full: [1_000, 10_000, 100_000], smoke: [100] };
/** Issue 24: assembly at 100,000 entries at most this many times the one-pass scan. */
const TARGET_RATIO = 3;
const TARGET_ENTRIES = 100_000;

/** The peer: one pass keeping the newest entry of each tag. */
function newestPerTag(list: readonly BlackboardEntry[]): Map<string, BlackboardEntry> {
  const newest = new Map<string, BlackboardEntry>();
  for (const entry of list) {
    const kept = newest.get(entry.tag);
    if (kept === undefined || kept.revision < entry.revision) newest.set(entry.tag, entry);
  }
  return newest;
}

/** The worked example's entries, then `count` more: event lines and dialogue turns, as a long run appends them. */
function entries(count: number): BlackboardEntry[] {
  const base = workedEntries();
  const list = [...base];
  for (let index = 0; list.length < count; index += 1) {
    const dialogue = index % 3 !== 0;
    list.push({
      tag: dialogue ? '对话.历史' : '运行.事件流',
      content: dialogue ? `第 ${index} 轮：${index % 2 === 0 ? '我问他还记得什么。' : '他摇了摇头，看向窗外的雾。'}` : `23:${String(index % 60).padStart(2, '0')} 事件 ${index}：雾更浓了。`,
      author: dialogue && index % 2 === 0 ? { kind: 'user' } : { kind: 'worker', name: dialogue ? 'narrator' : 'world-simulator' },
      revision: base.length + index + 1,
      createdAt: new Date(Date.UTC(2026, 0, 1, 0, 0, index)).toISOString(),
    });
  }
  // Shuffled deterministically: assembly must order by revision whatever it is given.
  return list.map((entry, index) => ({ entry, key: (index * 2_654_435_761) % 4_294_967_296 })).sort((left, right) => left.key - right.key).map(({ entry }) => entry);
}

export async function run(options: BenchOptions): Promise<BenchResult> {
  const contract = resolveWorkerContract({ skill: workedSkills().get('narrator')! });
  const rows = [];
  const targets = [];
  for (const size of SIZES[options.size]) {
    const list = entries(size);
    let characters = 0;
    const measured = interleaved({
      rounds: options.size === 'smoke' ? 2 : size >= 100_000 ? 7 : 21,
      warmup: options.size === 'smoke' ? 1 : 3,
      subject: () => {
        const flat = flattenWorkerContext(assembleWorkerContextSections({ contract, entries: list, sharedContext: WORKED_SHARED_CONTEXT, task: '续写本轮。' }));
        characters = flat.system.length + flat.user.length;
      },
      peer: () => void newestPerTag(list),
    });
    rows.push({ entries: size, 'assembly p50 (ms)': fixed(measured.subjectMs, 2), 'one-pass scan p50 (ms)': fixed(measured.peerMs, 2), 'x the scan': fixed(measured.ratio, 1), 'prompt characters': characters });
    if (size === TARGET_ENTRIES) {
      targets.push({ name: `worker assembly at ${size.toLocaleString('en-US')} entries at most ${TARGET_RATIO}x the one-pass scan`, measured: `${fixed(measured.ratio, 2)}x the scan`, met: measured.ratio <= TARGET_RATIO });
    }
  }
  return {
    title: TITLE,
    method: "The narrator worker of seed 004's worked example (static persona and world, tail_lines_2 events, last_4_turns dialogue, this turn's inputs), its entries plus generated event lines and dialogue turns in shuffled order; the reference is one pass over the same entries keeping the newest entry of each tag.",
    tables: [{ title: 'assembly time by blackboard size', rows }],
    targets,
    notes: [],
  };
}
