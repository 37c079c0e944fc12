// ContextWorkspace: resolve over 10,000 blocks against a plain numeric sort of
// the same 10,000 blocks (timed alternately in this process), and register
// throughput with and without a trace recorder. A manual clock advances
// 100 ms per resolve, so time fade runs on every block every time, as in a
// live agent.
import { ConservativeTokenEstimator } from '@strata/context';
import { readSharedData } from '@strata/testing';
import { BUILT_IN_DOMAINS, ContextWorkspace, contextBlock, type ContextBlock, type FocusedDomain, type ResolveOptions } from '@strata/context-workspace';
import type { BenchOptions, BenchResult, BenchTable, BenchTarget } from './bench-result.js';
import { fixed, interleaved, median, time } from './measure.js';

const CLOCK_STEP_MS = 100;
/** Registration spreads over time, so scores differ by age and fade speed (no ties to make sorting easy). */
const REGISTER_STEP_MS = 10;
const RESOLVE_TARGET_RATIO = 2;

interface Sizes {
  readonly blocks: number;
  readonly rounds: number;
  readonly warmup: number;
  readonly tracedSmall: number;
}

const SIZES: Record<BenchOptions['size'], Sizes> = {
  full: { blocks: 10_000, rounds: 61, warmup: 15, tracedSmall: 1_000 },
  smoke: { blocks: 300, rounds: 3, warmup: 1, tracedSmall: 100 },
};

/** Half the blocks have a SourceKey of their own; the other half share keys four at a time (aggregates). */
function buildBlocks(count: number): ContextBlock[] {
  const blocks: ContextBlock[] = [];
  for (let index = 0; index < count; index += 1) {
    const shared = index % 2 === 1;
    const first = BUILT_IN_DOMAINS[index % BUILT_IN_DOMAINS.length]!;
    const second = BUILT_IN_DOMAINS[(index * 7 + 3) % BUILT_IN_DOMAINS.length]!;
    blocks.push(
      contextBlock({
        blockName: shared ? `history${Math.floor(index / 8)}` : `note${index}`,
        source: shared ? `module${Math.floor(index / 8) % 5}` : `module${index % 13}`,
        focusedOn: index % 3 === 0 ? [first, second] : [first],
        urgency: index % 17 === 0 ? 'HIGH' : 'NORMAL',
        blockContent: `Observation ${index}: the agent saw value ${index * 31} at step ${index % 97}; details follow & more.`,
        compactBlock: `Observation ${index}: value ${index * 31}.`,
        abstractBlock: `Obs ${index}.`,
        replaceFadeFactor: 10,
        timeFadeFactor: 0.5 + (index % 7) * 0.5,
        activateFactor: 2,
      }),
    );
  }
  return blocks;
}

function filledWorkspace(blocks: readonly ContextBlock[]): { workspace: ContextWorkspace; advance: () => void } {
  let nowMs = 0;
  const workspace = new ContextWorkspace({ now: () => nowMs });
  for (const block of blocks) {
    workspace.register(block);
    nowMs += REGISTER_STEP_MS;
  }
  return { workspace, advance: () => void (nowMs += CLOCK_STEP_MS) };
}

/**
 * One resolve case against the peer: sorting the same blocks, as the
 * workspace holds them (registration order), by their activation score, one
 * numeric comparison. Both are timed alternately. The peer's scores are read
 * after the workspace's warm-up resolves, so it sorts the scores the resolve
 * ranks (activation has lifted many blocks to the same ceilings by then,
 * which helps a sort too), not the scores of a workspace never resolved.
 */
function resolveCase(label: string, sizes: Sizes, domains: readonly FocusedDomain[], options: { resolve?: ResolveOptions; readText: boolean }) {
  const { workspace, advance } = filledWorkspace(buildBlocks(sizes.blocks));
  let elements = 0;
  let characters = 0;
  const subject = () => {
    advance();
    const resolved = workspace.resolve(domains, options.resolve);
    elements = resolved.blocks.length;
    if (options.readText) characters = resolved.text.length;
  };
  for (let round = 0; round < sizes.warmup; round += 1) subject();
  const states = workspace.blocks().map((state) => ({ block: state.block, score: state.activationScore }));
  // The same blocks in a fixed shuffled order: a sort cannot lean on runs left by registration.
  const shuffled = states.map((state, index) => ({ state, key: (index * 2_654_435_761) % 4_294_967_296 })).sort((left, right) => left.key - right.key).map(({ state }) => state);
  const sortByScore = (list: readonly { score: number }[]) => () => {
    const sorted = list.slice().sort((left, right) => right.score - left.score);
    if (sorted.length !== list.length) throw new Error('unreachable');
  };
  const measured = interleaved({ rounds: sizes.rounds, warmup: sizes.warmup, subject, peer: sortByScore(states) });
  const againstShuffled = interleaved({ rounds: sizes.rounds, warmup: sizes.warmup, subject, peer: sortByScore(shuffled) });
  return {
    row: {
      case: label,
      'blocks in': workspace.size,
      'elements out': elements,
      'characters read': options.readText ? characters : null,
      'resolve p50 (ms)': fixed(measured.subjectMs, 2),
      'plain sort p50 (ms)': fixed(measured.peerMs, 2),
      'x the plain sort': fixed(measured.ratio, 2),
      'plain sort, shuffled input, p50 (ms)': fixed(againstShuffled.peerMs, 2),
      'x the shuffled sort': fixed(againstShuffled.ratio, 2),
    },
    ratio: measured.ratio,
  };
}

function registerRate(blocks: readonly ContextBlock[], options: { traced: boolean }, rounds: number): { perSecond: number; medianMs: number } {
  const timings: number[] = [];
  for (let round = 0; round <= rounds; round += 1) {
    let events = 0;
    const workspace = new ContextWorkspace({ now: () => 0, traceRecorder: options.traced ? { record: () => void (events += 1) } : undefined });
    const elapsed = time(() => {
      for (const block of blocks) workspace.register(block);
    });
    if (round > 0) timings.push(elapsed); // the first round warms up
    if (options.traced && events !== blocks.length) throw new Error('every register records one event');
  }
  const medianMs = median(timings);
  return { perSecond: (blocks.length / medianMs) * 1000, medianMs };
}

/**
 * Real agent text: every message of the 200 tau-bench airline runs becomes a
 * block (user turns for COMMUNICATION, assistant turns for COGNITION and
 * ACTION, tool results for PERCEIVE and MEMORY), registered in order with the
 * clock advancing 2 s per message. Then a budgeted resolve, as the
 * contributor bridge runs it each turn.
 */
function realDataRow(sizes: Sizes): Record<string, string | number> | undefined {
  const raw = readSharedData('tau-bench/gpt-4o-airline.json');
  if (raw === undefined) return undefined;
  const runs = JSON.parse(raw) as { traj: { role: string; content: unknown }[] }[];
  let nowMs = 0;
  const workspace = new ContextWorkspace({ now: () => nowMs });
  const estimator = new ConservativeTokenEstimator();
  runs.forEach((run, runIndex) => {
    for (const message of run.traj) {
      const content = typeof message.content === 'string' ? message.content : '';
      if (message.role === 'system' || content.trim() === '') continue;
      const focusedOn: FocusedDomain[] = message.role === 'user' ? ['COMMUNICATION'] : message.role === 'assistant' ? ['COGNITION', 'ACTION'] : ['PERCEIVE', 'MEMORY'];
      nowMs += 2_000;
      workspace.register(
        contextBlock({
          blockName: message.role === 'tool' ? 'tool_result' : `${message.role}_turn`,
          source: `run${runIndex}`,
          focusedOn,
          blockContent: content,
          compactBlock: content.length > 240 ? `${content.slice(0, 240)}…` : content,
          abstractBlock: content.length > 80 ? `${content.slice(0, 80)}…` : content,
          replaceFadeFactor: 25,
          timeFadeFactor: 1,
          activateFactor: 5,
        }),
      );
    }
  });
  const blocksIn = workspace.size;
  const timings: number[] = [];
  let kept = 0;
  let usedTokens = 0;
  for (let round = 0; round < sizes.warmup + sizes.rounds; round += 1) {
    nowMs += CLOCK_STEP_MS;
    let resolved: ReturnType<ContextWorkspace['resolve']> | undefined;
    const elapsed = time(() => {
      resolved = workspace.resolve(['ACTION', 'PERCEIVE', 'MEMORY'], { maxTokens: 8_000, estimator });
      void resolved.text.length;
    });
    if (round >= sizes.warmup) timings.push(elapsed);
    kept = resolved!.blocks.length;
    usedTokens = resolved!.budget?.usedTokens ?? 0;
  }
  return { case: 'tau-bench airline messages as blocks, 8,000-token budget, text read', 'blocks in': blocksIn, 'elements out': kept, 'tokens used': usedTokens, 'resolve p50 (ms)': fixed(median(timings), 2) };
}

export async function run(options: BenchOptions): Promise<BenchResult> {
  const sizes = SIZES[options.size];
  const all = [...BUILT_IN_DOMAINS];
  const count = sizes.blocks.toLocaleString('en-US');
  const cases = [
    resolveCase(`${count} blocks, 3 of 5 domains, ranked result`, sizes, ['ACTION', 'MEMORY', 'COGNITION'], { readText: false }),
    resolveCase(`${count} blocks, all 5 domains, ranked result`, sizes, all, { readText: false }),
    resolveCase(`${count} blocks, all 5 domains, full text read`, sizes, all, { readText: true }),
    resolveCase(`${count} blocks, all 5 domains, 8,000-token budget, text read`, sizes, all, { resolve: { maxTokens: 8_000, estimator: new ConservativeTokenEstimator() }, readText: true }),
  ];
  const realData = realDataRow(sizes);

  const blocks = buildBlocks(sizes.blocks);
  const small = blocks.slice(0, sizes.tracedSmall);
  const registerRounds = options.size === 'full' ? 5 : 1;
  const plain = registerRate(blocks, { traced: false }, registerRounds);
  const tracedSmall = registerRate(small, { traced: true }, registerRounds);
  const tracedLarge = registerRate(blocks, { traced: true }, registerRounds);
  const registerTable: BenchTable = {
    title: 'register throughput',
    rows: [
      { case: `${count} blocks, no trace recorder`, 'registers/s': Math.round(plain.perSecond), 'total (ms)': fixed(plain.medianMs, 1) },
      { case: `${small.length.toLocaleString('en-US')} blocks, trace recorder attached`, 'registers/s': Math.round(tracedSmall.perSecond), 'total (ms)': fixed(tracedSmall.medianMs, 1) },
      { case: `${count} blocks, trace recorder attached`, 'registers/s': Math.round(tracedLarge.perSecond), 'total (ms)': fixed(tracedLarge.medianMs, 1) },
    ],
  };

  const worst = Math.max(cases[0]!.ratio, cases[1]!.ratio);
  const flatness = tracedLarge.perSecond / tracedSmall.perSecond;
  const targets: BenchTarget[] = [
    { name: `resolve at ${count} blocks at most ${RESOLVE_TARGET_RATIO}x a plain numeric sort of the same blocks (ranked result)`, measured: `${fixed(worst, 2)}x (worst of 3 and 5 domains)`, met: worst <= RESOLVE_TARGET_RATIO },
    {
      name: 'register with a trace recorder O(1) amortised: registers/s at 10x the blocks at least half the rate',
      measured: `${Math.round(tracedLarge.perSecond).toLocaleString('en-US')}/s at ${count} against ${Math.round(tracedSmall.perSecond).toLocaleString('en-US')}/s at ${small.length.toLocaleString('en-US')} (${fixed(flatness, 2)})`,
      met: flatness >= 0.5,
    },
  ];
  return {
    title: `ContextWorkspace at ${count} blocks`,
    method:
      `${count} synthetic blocks over 5 domains (half with keys of their own, half sharing keys four at a time), registered 10 ms apart with varied time fade; ` +
      'each resolve advances the clock 100 ms. The peer sorts the same 10,000 blocks by their activation score as the warm-up resolves left it (one numeric comparison), in registration order (the target\'s measure) and in a fixed shuffled order; subject and peer are timed alternately in this process.',
    tables: [{ title: 'resolve against a plain numeric sort of the same blocks', rows: [...cases.map((each) => each.row), ...(realData ? [realData] : [])] }, registerTable],
    targets,
    notes: ['Trace events list and render their blocks when `blocks` is first read; the recorder here only counts events.'],
  };
}
