import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConservativeTokenEstimator, type TokenEstimator } from '@strata/context';
import { contextBlock, type ContextBlockInit } from './context-block.js';
import { ContextWorkspace } from './context-workspace.js';
import { ContextWorkspaceInputError } from './errors/context-workspace-input-error.js';

/** One token per UTF-16 code unit: easy to count by hand. */
const CHARACTER_ESTIMATOR: TokenEstimator = {
  family: 'unknown',
  exact: false,
  countText: (text) => text.length,
  countMessage: (message) => message.content.length,
  countTool: (tool) => tool.name.length,
};

function block(name: string, overrides: Partial<ContextBlockInit> = {}) {
  const letter = name.toUpperCase();
  return contextBlock({
    blockName: name,
    source: 's',
    focusedOn: ['ACTION'],
    blockContent: letter.repeat(10),
    compactBlock: letter.repeat(4),
    abstractBlock: letter,
    replaceFadeFactor: 10,
    timeFadeFactor: 0,
    activateFactor: 0,
    ...overrides,
  });
}

// `<a source="s" urgency="normal">` is 31 characters and `</a>` 4: a block
// costs 45 at full, 39 at compact, 36 at abstract; blocks are joined by "\n".
function resolveWithin(maxTokens: number) {
  const workspace = new ContextWorkspace({ now: () => 0 });
  workspace.register(block('a'));
  workspace.register(block('b'));
  return workspace.resolve(['ACTION'], { maxTokens, estimator: CHARACTER_ESTIMATOR });
}

test('a result within the budget is unchanged and reports its count', () => {
  const resolved = resolveWithin(91);
  assert.equal(resolved.text, '<a source="s" urgency="normal">AAAAAAAAAA</a>\n<b source="s" urgency="normal">BBBBBBBBBB</b>');
  assert.deepEqual(resolved.budget, { maxTokens: 91, usedTokens: 91, degraded: [], dropped: [] });
  assert.deepEqual(resolved.diagnostics, []);
});

test('the lowest-ranked block degrades first, one projection at a time', () => {
  const compact = resolveWithin(90);
  assert.equal(compact.text, '<a source="s" urgency="normal">AAAAAAAAAA</a>\n<b source="s" urgency="normal">BBBB</b>');
  assert.deepEqual(compact.budget, {
    maxTokens: 90,
    usedTokens: 85,
    degraded: [{ blockName: 'b', source: 's', from: ['full'], to: ['compact'] }],
    dropped: [],
  });
  assert.deepEqual(compact.diagnostics.map((diagnostic) => [diagnostic.code, diagnostic.severity, diagnostic.subject]), [
    ['CONTEXT_WORKSPACE_BLOCK_DEGRADED', 'info', 'b@s'],
  ]);
  assert.equal(compact.blocks[1]?.members[0]?.activatedProjection, 'full');
  assert.equal(compact.blocks[1]?.members[0]?.projection, 'compact');

  assert.equal(resolveWithin(84).budget?.usedTokens, 82);
  assert.deepEqual(resolveWithin(84).budget?.degraded, [{ blockName: 'b', source: 's', from: ['full'], to: ['abstract'] }]);
});

test('higher-ranked blocks degrade only once every lower one is at its smallest', () => {
  const resolved = resolveWithin(81);
  assert.equal(resolved.text, '<a source="s" urgency="normal">AAAA</a>\n<b source="s" urgency="normal">B</b>');
  assert.deepEqual(resolved.budget?.degraded, [
    { blockName: 'a', source: 's', from: ['full'], to: ['compact'] },
    { blockName: 'b', source: 's', from: ['full'], to: ['abstract'] },
  ]);
  assert.equal(resolved.budget?.usedTokens, 76);
  assert.equal(resolveWithin(75).budget?.usedTokens, 73);
});

test('blocks that would not fit even at their smallest are dropped whole, lowest-ranked first', () => {
  // At their smallest both cost 36 + 1 + 36 = 73 > 72: b is dropped, and a alone fits at full.
  const resolved = resolveWithin(72);
  assert.equal(resolved.text, '<a source="s" urgency="normal">AAAAAAAAAA</a>');
  assert.deepEqual(resolved.budget, {
    maxTokens: 72,
    usedTokens: 45,
    degraded: [],
    dropped: [{ blockName: 'b', source: 's', rank: 1 }],
  });
  assert.deepEqual(resolved.diagnostics, [
    {
      code: 'CONTEXT_WORKSPACE_BLOCKS_DROPPED',
      severity: 'warning',
      message: '1 block(s) left out to fit 72 tokens, lowest-ranked first: b@s',
    },
  ]);
  // What is kept still degrades when it must: a at compact is 39.
  assert.deepEqual(resolveWithin(40).budget?.degraded, [{ blockName: 'a', source: 's', from: ['full'], to: ['compact'] }]);
  const nothing = resolveWithin(35);
  assert.equal(nothing.text, '');
  assert.deepEqual(nothing.blocks, []);
  assert.deepEqual(nothing.budget?.dropped, [
    { blockName: 'b', source: 's', rank: 1 },
    { blockName: 'a', source: 's', rank: 0 },
  ]);
  assert.equal(nothing.budget?.usedTokens, 0);
});

test('a projection no smaller than the one before is skipped, not reported', () => {
  const workspace = new ContextWorkspace({ now: () => 0 });
  // Compact defaults to full, abstract is smaller: the degradation goes straight to abstract.
  workspace.register(block('a', { compactBlock: undefined, abstractBlock: 'A' }));
  const resolved = workspace.resolve(['ACTION'], { maxTokens: 40, estimator: CHARACTER_ESTIMATOR });
  assert.deepEqual(resolved.budget?.degraded, [{ blockName: 'a', source: 's', from: ['full'], to: ['abstract'] }]);
  assert.equal(resolved.text, '<a source="s" urgency="normal">A</a>');
});

test('an aggregate degrades all its members together and recomputes its urgency', () => {
  const workspace = new ContextWorkspace({ now: () => 0 });
  const urgent = { blockContent: { content: 'AAAAAAAAAA', urgency: 'CRITICAL' as const } };
  workspace.register(block('a', urgent));
  workspace.register(block('a', urgent));
  const full = workspace.resolve(['ACTION']);
  assert.equal(full.blocks[0]?.urgency, 'CRITICAL');
  const fitted = workspace.resolve(['ACTION'], { maxTokens: full.text.length - 1, estimator: CHARACTER_ESTIMATOR });
  assert.deepEqual(fitted.budget?.degraded, [{ blockName: 'a', source: 's', from: ['full', 'full'], to: ['compact', 'compact'] }]);
  assert.equal(fitted.blocks[0]?.urgency, 'NORMAL');
  assert.equal(
    fitted.text,
    [
      '<a source="s" urgency="normal">',
      '  <snapshot source="s" urgency="normal">AAAA</snapshot>',
      '  <history_snapshot source="s" urgency="normal">AAAA</history_snapshot>',
      '</a>',
    ].join('\n'),
  );
});

test('with the conservative estimator the kept text fits and every block is whole', () => {
  const workspace = new ContextWorkspace({ now: () => 0 });
  for (let index = 0; index < 40; index += 1) {
    workspace.register(
      contextBlock({
        blockName: `note${index}`,
        source: 'notes',
        focusedOn: index % 2 === 0 ? ['ACTION'] : ['MEMORY'],
        blockContent: `Full note ${index}: ${'the quick brown fox jumps over the lazy dog. '.repeat(8)}`,
        compactBlock: `Compact note ${index}: the fox jumps.`,
        abstractBlock: `Note ${index}.`,
        replaceFadeFactor: 10,
        timeFadeFactor: 0,
        activateFactor: 0,
      }),
    );
  }
  const estimator = new ConservativeTokenEstimator();
  const unbudgeted = workspace.resolve(['ACTION', 'MEMORY']);
  const budgeted = workspace.resolve(['ACTION', 'MEMORY'], { maxTokens: 300, estimator });
  assert.ok(estimator.countText(unbudgeted.text) > 300);
  assert.ok(estimator.countText(budgeted.text) <= 300);
  assert.equal(budgeted.budget?.usedTokens, estimator.countText(budgeted.text));
  assert.ok((budgeted.budget?.dropped.length ?? 0) > 0);
  // Kept blocks are a prefix of the ranking, each a whole element of one of its projections.
  budgeted.blocks.forEach((kept, index) => {
    assert.equal(kept.blockName, unbudgeted.blocks[index]?.blockName);
    assert.match(kept.text, new RegExp(`^<${kept.blockName} source="notes" urgency="normal">[^<]*</${kept.blockName}>$`));
  });
  assert.equal(budgeted.blocks.length + (budgeted.budget?.dropped.length ?? 0), unbudgeted.blocks.length);
  // Many drops are one diagnostic naming the ten lowest-ranked and counting the rest.
  const dropped = budgeted.budget?.dropped ?? [];
  assert.ok(dropped.length > 10);
  const droppedDiagnostics = budgeted.diagnostics.filter((diagnostic) => diagnostic.code === 'CONTEXT_WORKSPACE_BLOCKS_DROPPED');
  assert.equal(droppedDiagnostics.length, 1);
  assert.equal(
    droppedDiagnostics[0]?.message,
    `${dropped.length} block(s) left out to fit 300 tokens, lowest-ranked first: ` +
      `${dropped.slice(0, 10).map((block) => `${block.blockName}@notes`).join(', ')} and ${dropped.length - 10} more`,
  );
  assert.equal(dropped[0]?.rank, unbudgeted.blocks.length - 1);
});

test('a malformed budget is a clear error naming the field', () => {
  const workspace = new ContextWorkspace({ now: () => 0 });
  assert.throws(
    () => workspace.resolve(['ACTION'], { maxTokens: 0, estimator: CHARACTER_ESTIMATOR }),
    (error: unknown) => ContextWorkspaceInputError.isInstance(error) && error.field === 'maxTokens',
  );
  assert.throws(
    () => workspace.resolve(['ACTION'], { maxTokens: 1.5, estimator: CHARACTER_ESTIMATOR }),
    (error: unknown) => ContextWorkspaceInputError.isInstance(error) && error.field === 'maxTokens',
  );
  assert.throws(
    () => workspace.resolve(['ACTION'], { maxTokens: 100 }),
    (error: unknown) => ContextWorkspaceInputError.isInstance(error) && error.field === 'estimator',
  );
});
