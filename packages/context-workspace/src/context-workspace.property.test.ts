import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { TokenEstimator } from '@strata/context';
import { activate, projectionLevel, type Exposure } from './activation.js';
import { contextBlock, type ContextBlock } from './context-block.js';
import { ContextWorkspace } from './context-workspace.js';
import { BUILT_IN_DOMAINS, type FocusedDomain } from './focused-domain.js';
import { renderBlockElement } from './render-block.js';
import type { ResolvedContext } from './resolved-context.js';
import type { ContextWorkspaceTraceBlock, ContextWorkspaceTraceEvent } from './trace-recorder.js';

type Operation =
  | { readonly kind: 'register'; readonly block: ContextBlock }
  | { readonly kind: 'advance'; readonly milliseconds: number }
  | { readonly kind: 'resolve'; readonly domains: readonly FocusedDomain[] }
  | { readonly kind: 'expire'; readonly blockName: string; readonly source: string };

const NAMES = ['memory', 'plan', 'scene'];
const SOURCES = ['main', 'side'];
const factor = fc.oneof(fc.constantFrom(0, 1, 10, 50, 100, 1e6), fc.double({ min: 0, max: 200, noNaN: true }));
const domainSet = fc.subarray([...BUILT_IN_DOMAINS], { minLength: 1 });
const requestedDomains = fc.shuffledSubarray([...BUILT_IN_DOMAINS]);

const blockArbitrary = fc
  .record({
    blockName: fc.constantFrom(...NAMES),
    source: fc.constantFrom(...SOURCES),
    focusedOn: domainSet,
    text: fc.string({ maxLength: 12 }),
    urgency: fc.constantFrom('LOW', 'NORMAL', 'HIGH', 'CRITICAL' as const),
    replaceFadeFactor: factor,
    timeFadeFactor: factor,
    activateFactor: factor,
  })
  .map(({ text, ...rest }) =>
    contextBlock({ ...rest, blockContent: `full ${text}`, compactBlock: `compact ${text}`, abstractBlock: text }),
  );

const operation: fc.Arbitrary<Operation> = fc.oneof(
  { weight: 4, arbitrary: blockArbitrary.map((block) => ({ kind: 'register' as const, block })) },
  { weight: 2, arbitrary: fc.integer({ min: 0, max: 180_000 }).map((milliseconds) => ({ kind: 'advance' as const, milliseconds })) },
  { weight: 3, arbitrary: requestedDomains.map((domains) => ({ kind: 'resolve' as const, domains })) },
  {
    weight: 1,
    arbitrary: fc.record({ blockName: fc.constantFrom(...NAMES), source: fc.constantFrom(...SOURCES) }).map((key) => ({ kind: 'expire' as const, ...key })),
  },
);
const operations = fc.array(operation, { maxLength: 40 });

/** Runs the operations on a fresh workspace with a manual clock; returns it, the clock and every resolve. */
function run(list: readonly Operation[]) {
  let nowMs = 1_700_000_000_000;
  const clock = { now: () => nowMs };
  const workspace = new ContextWorkspace(clock);
  const results: { domains: readonly FocusedDomain[]; resolved: ResolvedContext }[] = [];
  for (const step of list) {
    if (step.kind === 'register') workspace.register(step.block);
    else if (step.kind === 'advance') nowMs += step.milliseconds;
    else if (step.kind === 'resolve') results.push({ domains: step.domains, resolved: workspace.resolve(step.domains) });
    else workspace.expire(step.blockName, step.source);
  }
  return { workspace, clock, results };
}

test('scores stay within [0, 100] whatever happens', () => {
  fc.assert(
    fc.property(operations, (list) => {
      const { workspace, results } = run(list);
      for (const state of workspace.blocks()) {
        assert.ok(state.activationScore >= 0 && state.activationScore <= 100, String(state.activationScore));
      }
      for (const { resolved } of results) {
        for (const member of resolved.blocks.flatMap((resolvedBlock) => resolvedBlock.members)) {
          assert.ok(member.activationScore > 0 && member.activationScore <= 100, String(member.activationScore));
        }
      }
    }),
  );
});

test('resolve is deterministic for the same clock', () => {
  fc.assert(
    fc.property(operations, requestedDomains, (list, domains) => {
      const first = run(list);
      const second = run(list);
      assert.deepEqual(first.results, second.results);
      // `text` is rendered on first read, outside deepEqual's view: compare it explicitly.
      assert.deepEqual(first.results.map(({ resolved }) => resolved.text), second.results.map(({ resolved }) => resolved.text));
      const firstFinal = first.workspace.resolve(domains);
      const secondFinal = second.workspace.resolve(domains);
      assert.deepEqual(firstFinal, secondFinal);
      assert.equal(firstFinal.text, secondFinal.text);
      assert.deepEqual(firstFinal.blocks.map((resolvedBlock) => resolvedBlock.text), secondFinal.blocks.map((resolvedBlock) => resolvedBlock.text));
      assert.equal(JSON.stringify(first.workspace.snapshot()), JSON.stringify(second.workspace.snapshot()));
    }),
  );
});

test('a restored snapshot resolves exactly as the workspace it was taken from', () => {
  fc.assert(
    fc.property(operations, requestedDomains, fc.integer({ min: 0, max: 600_000 }), (list, domains, later) => {
      const { workspace, clock } = run(list);
      const restored = ContextWorkspace.restore(JSON.parse(JSON.stringify(workspace.snapshot())), {
        now: () => clock.now() + later,
      });
      const original = ContextWorkspace.restore(workspace.snapshot(), { now: () => clock.now() + later });
      const fromJson = restored.resolve(domains);
      const fromObject = original.resolve(domains);
      assert.deepEqual(fromJson, fromObject);
      assert.equal(fromJson.text, fromObject.text);
    }),
  );
});

test('a block never appears for domains it does not focus on; exposure follows the first domain', () => {
  fc.assert(
    fc.property(operations, (list) => {
      for (const { domains, resolved } of run(list).results) {
        for (const member of resolved.blocks.flatMap((resolvedBlock) => resolvedBlock.members)) {
          assert.ok(member.block.focusedOn.some((domain) => domains.includes(domain)));
          assert.equal(member.exposure, member.block.focusedOn.includes(domains[0]!) ? 'PRIMARY' : 'SECONDARY');
          const weight = domains.reduce((sum, domain, index) => sum + (member.block.focusedOn.includes(domain) ? domains.length - index : 0), 0);
          assert.equal(member.domainWeight, weight);
        }
      }
    }),
  );
});

test('results are ordered by weight descending and hold each SourceKey once', () => {
  fc.assert(
    fc.property(operations, (list) => {
      for (const { resolved } of run(list).results) {
        const weights = resolved.blocks.map((resolvedBlock) => resolvedBlock.domainWeight);
        assert.deepEqual(weights, [...weights].sort((left, right) => right - left));
        const keys = resolved.blocks.map((resolvedBlock) => `${resolvedBlock.blockName}/${resolvedBlock.source}`);
        assert.equal(new Set(keys).size, keys.length);
        for (const resolvedBlock of resolved.blocks) {
          const best = Math.max(...resolvedBlock.members.map((member) => member.activationScore));
          assert.equal(resolvedBlock.members[resolvedBlock.snapshotIndex]?.activationScore, best);
        }
      }
    }),
  );
});

test('expire removes every block of the key, and nothing else', () => {
  fc.assert(
    fc.property(operations, fc.constantFrom(...NAMES), fc.constantFrom(...SOURCES), (list, blockName, source) => {
      const { workspace } = run(list);
      const before = workspace.blocks();
      const ofKey = before.filter((state) => state.block.blockName === blockName && state.block.source === source);
      assert.equal(workspace.expire(blockName, source), ofKey.length);
      const after = workspace.blocks();
      assert.ok(after.every((state) => !(state.block.blockName === blockName && state.block.source === source)));
      assert.equal(after.length, before.length - ofKey.length);
      const resolved = workspace.resolve([...BUILT_IN_DOMAINS]);
      assert.ok(resolved.blocks.every((resolvedBlock) => !(resolvedBlock.blockName === blockName && resolvedBlock.source === source)));
    }),
  );
});

test('one activation never lowers a score and never moves it more than one level', () => {
  const levels = ['ABSTRACT', 'COMPACT', 'FULL'];
  fc.assert(
    fc.property(
      fc.double({ min: 0, max: 100, noNaN: true }),
      fc.constantFrom<Exposure>('PRIMARY', 'SECONDARY'),
      fc.double({ min: 0, max: 1e12, noNaN: true }),
      (score, exposure, activateFactor) => {
        const raised = activate({ score, exposure, activateFactor });
        assert.ok(raised >= score && raised <= 100);
        const jump = levels.indexOf(projectionLevel(raised)) - levels.indexOf(projectionLevel(score));
        assert.ok(jump <= (exposure === 'PRIMARY' ? 1 : 0), `${score} -> ${raised}`);
      },
    ),
  );
});

test('a budgeted resolve fits, keeps a prefix of the ranking, and never cuts a block', () => {
  const estimator: TokenEstimator = {
    family: 'unknown',
    exact: false,
    countText: (text) => Math.ceil(text.length / 4),
    countMessage: (message) => Math.ceil(message.content.length / 4),
    countTool: (tool) => tool.name.length,
  };
  fc.assert(
    fc.property(operations, requestedDomains, fc.integer({ min: 1, max: 200 }), (list, domains, maxTokens) => {
      const first = run(list);
      const second = run(list);
      const unbudgeted = first.workspace.resolve(domains);
      const budgeted = second.workspace.resolve(domains, { maxTokens, estimator });
      assert.ok(estimator.countText(budgeted.text) <= maxTokens);
      assert.equal(budgeted.budget?.usedTokens, estimator.countText(budgeted.text));
      assert.equal(budgeted.blocks.length + (budgeted.budget?.dropped.length ?? 0), unbudgeted.blocks.length);
      budgeted.blocks.forEach((kept, index) => {
        const original = unbudgeted.blocks[index]!;
        assert.equal(`${kept.blockName}/${kept.source}`, `${original.blockName}/${original.source}`);
        kept.members.forEach((member, memberIndex) => {
          const order = ['full', 'compact', 'abstract'];
          assert.ok(order.indexOf(member.projection) >= order.indexOf(original.members[memberIndex]!.projection));
        });
      });
      if (budgeted.budget?.dropped.length === 0) {
        assert.ok(unbudgeted.text.length >= budgeted.text.length);
      }
    }),
  );
});

/** The ranking rule written out as one comparator: weight, score, block name, source (code units), newer first. */
function referenceRanking(resolved: ResolvedContext): string[] {
  const members = resolved.blocks.flatMap((resolvedBlock) => resolvedBlock.members);
  const units = (left: string, right: string) => (left < right ? -1 : left > right ? 1 : 0);
  members.sort(
    (left, right) =>
      right.domainWeight - left.domainWeight ||
      right.activationScore - left.activationScore ||
      units(left.block.blockName, right.block.blockName) ||
      units(left.block.source, right.block.source) ||
      right.sequence - left.sequence,
  );
  const groups = new Map<string, number[]>();
  for (const member of members) {
    const key = `${member.block.blockName}/${member.block.source}`;
    groups.set(key, [...(groups.get(key) ?? []), member.sequence]);
  }
  return [...groups].map(([key, sequences]) => `${key}: ${sequences.join(' ')}`);
}

test('the ranking is exactly weight, score, block name, source, newer first, grouped where each key first ranks', () => {
  fc.assert(
    fc.property(operations, (list) => {
      for (const { resolved } of run(list).results) {
        const actual = resolved.blocks.map((resolvedBlock) => `${resolvedBlock.blockName}/${resolvedBlock.source}: ${resolvedBlock.members.map((member) => member.sequence).join(' ')}`);
        assert.deepEqual(actual, referenceRanking(resolved));
      }
    }),
  );
});

test('a trace event read later lists every block exactly as the workspace held it at the event', () => {
  fc.assert(
    fc.property(operations, (list) => {
      const recorded: { event: ContextWorkspaceTraceEvent; expected: ContextWorkspaceTraceBlock[] }[] = [];
      let workspace: ContextWorkspace | undefined;
      const units = (left: string, right: string) => (left < right ? -1 : left > right ? 1 : 0);
      const traceRecorder = {
        record(event: ContextWorkspaceTraceEvent) {
          // What the event must show, computed now, the slow way.
          const expected = workspace!
            .blocks()
            .slice()
            .sort((left, right) => units(left.block.blockName, right.block.blockName) || units(left.block.source, right.block.source) || left.sequence - right.sequence)
            .map(({ sequence, block, activationScore, level }) => ({
              sequence,
              blockName: block.blockName,
              source: block.source,
              focusedOn: block.focusedOn,
              activationScore,
              level,
              fullRendered: renderBlockElement(block, 'full'),
              compactRendered: renderBlockElement(block, 'compact'),
              abstractRendered: renderBlockElement(block, 'abstract'),
            }));
          recorded.push({ event, expected });
        },
      };
      let nowMs = 1_700_000_000_000;
      workspace = new ContextWorkspace({ now: () => nowMs, traceRecorder });
      for (const step of list) {
        if (step.kind === 'register') workspace.register(step.block);
        else if (step.kind === 'advance') nowMs += step.milliseconds;
        else if (step.kind === 'resolve') workspace.resolve(step.domains);
        else workspace.expire(step.blockName, step.source);
      }
      // Read after everything else happened: each event still shows its own moment.
      for (const { event, expected } of recorded) {
        assert.deepEqual(event.blocks, expected);
        assert.deepEqual(JSON.parse(JSON.stringify(event)).blocks, JSON.parse(JSON.stringify(expected)));
      }
    }),
  );
});
