import { test } from 'node:test';
import assert from 'node:assert/strict';
import { contextBlock, type ContextBlockInit } from './context-block.js';
import { ContextWorkspace } from './context-workspace.js';
import { ContextWorkspaceInputError } from './errors/context-workspace-input-error.js';
import type { ContextWorkspaceSnapshotV1 } from './snapshot.js';

function manualClock(startMs: number) {
  let nowMs = startMs;
  return { now: () => nowMs, set: (milliseconds: number) => void (nowMs = milliseconds) };
}

const OLDER: ContextBlockInit = {
  blockName: 'memory',
  source: 'main',
  focusedOn: ['MEMORY', 'ACTION'],
  urgency: 'HIGH',
  blockContent: 'older full',
  compactBlock: { content: 'older compact', urgency: 'NORMAL' },
  replaceFadeFactor: 20,
  timeFadeFactor: 6,
  activateFactor: 5,
};

const NEWER: ContextBlockInit = {
  ...OLDER,
  urgency: 'NORMAL',
  blockContent: 'newer full',
  compactBlock: 'newer compact',
  abstractBlock: { content: 'newer abstract', urgency: 'LOW' },
};

/** Written by hand: a change to the persisted format must change this fixture. */
const GOLDEN_V1: ContextWorkspaceSnapshotV1 = {
  format: 'strata.context-workspace',
  version: 1,
  takenAtMs: 61_000,
  nextSequence: 2,
  blocks: [
    {
      sequence: 0,
      blockName: 'memory',
      source: 'main',
      focusedOn: ['ACTION', 'MEMORY'],
      urgency: 'HIGH',
      blockContent: { content: 'older full', urgency: 'HIGH' },
      compactBlock: { content: 'older compact', urgency: 'NORMAL' },
      abstractBlock: { content: 'older compact', urgency: 'NORMAL' },
      replaceFadeFactor: 20,
      timeFadeFactor: 6,
      activateFactor: 5,
      // 100 − 60 s × 6 / 60 = 94, then the newer block's registration − 20.
      activationScore: 74,
      touchedAtMs: 61_000,
    },
    {
      sequence: 1,
      blockName: 'memory',
      source: 'main',
      focusedOn: ['ACTION', 'MEMORY'],
      urgency: 'NORMAL',
      blockContent: { content: 'newer full', urgency: 'NORMAL' },
      compactBlock: { content: 'newer compact', urgency: 'NORMAL' },
      abstractBlock: { content: 'newer abstract', urgency: 'LOW' },
      replaceFadeFactor: 20,
      timeFadeFactor: 6,
      activateFactor: 5,
      activationScore: 100,
      touchedAtMs: 61_000,
    },
  ],
};

function buildWorkspace(clock: ReturnType<typeof manualClock>): ContextWorkspace {
  const workspace = new ContextWorkspace({ now: clock.now });
  clock.set(1_000);
  workspace.register(contextBlock(OLDER));
  clock.set(61_000);
  workspace.register(contextBlock(NEWER));
  return workspace;
}

test('snapshot matches the hand-written version 1 fixture, byte for byte', () => {
  const workspace = buildWorkspace(manualClock(0));
  assert.deepEqual(workspace.snapshot(), GOLDEN_V1);
  assert.equal(JSON.stringify(workspace.snapshot()), JSON.stringify(GOLDEN_V1));
});

test('taking a snapshot changes nothing', () => {
  const clock = manualClock(0);
  const workspace = buildWorkspace(clock);
  clock.set(121_000);
  workspace.snapshot();
  assert.deepEqual(workspace.snapshot().blocks.map((block) => [block.activationScore, block.touchedAtMs]), [
    [74, 61_000],
    [100, 61_000],
  ]);
});

test('restore resumes the same scores with time fade for the time that passed', () => {
  const clock = manualClock(121_000);
  const restored = ContextWorkspace.restore(JSON.parse(JSON.stringify(GOLDEN_V1)), { now: clock.now });
  // One minute after the snapshot: − 6 each.
  assert.deepEqual(restored.blocks().map((state) => state.activationScore), [68, 94]);

  const neverStopped = buildWorkspace(manualClock(0));
  const liveClock = manualClock(121_000);
  const live = ContextWorkspace.restore(neverStopped.snapshot(), { now: liveClock.now });
  const restoredResult = restored.resolve(['ACTION']);
  const liveResult = live.resolve(['ACTION']);
  assert.deepEqual(restoredResult, liveResult);
  assert.equal(restoredResult.text, liveResult.text);
  assert.equal(
    restored.resolve(['ACTION']).text,
    [
      '<memory source="main" urgency="high">',
      '  <snapshot source="main" urgency="normal">newer full</snapshot>',
      '  <history_snapshot source="main" urgency="high">older full</history_snapshot>',
      '</memory>',
    ].join('\n'),
  );
});

test('a restored workspace continues the registration sequence', () => {
  const clock = manualClock(61_000);
  const restored = ContextWorkspace.restore(GOLDEN_V1, { now: clock.now });
  restored.register(contextBlock({ ...NEWER, blockContent: 'newest' }));
  assert.deepEqual(restored.blocks().map((state) => [state.sequence, state.activationScore]), [
    [0, 54],
    [1, 80],
    [2, 100],
  ]);
});

function rejectsSnapshot(mutate: (snapshot: Record<string, any>) => void, field: string, code: string, options = {}): void {
  const snapshot = JSON.parse(JSON.stringify(GOLDEN_V1)) as Record<string, any>;
  mutate(snapshot);
  assert.throws(
    () => ContextWorkspace.restore(snapshot, options),
    (error: unknown) => {
      assert.ok(ContextWorkspaceInputError.isInstance(error), String(error));
      assert.equal(error.field, field);
      assert.equal(error.code, code);
      assert.ok(error.message.includes(field), error.message);
      return true;
    },
  );
}

test('bad snapshots are clear errors naming the path of the culprit', () => {
  rejectsSnapshot((snapshot) => (snapshot.version = 2), 'snapshot.version', 'WORKSPACE_UNSUPPORTED_SNAPSHOT');
  rejectsSnapshot((snapshot) => (snapshot.blocks[0].focusedOn[1] = 'DREAMING'), 'blocks[0].focusedOn[1]', 'WORKSPACE_UNKNOWN_DOMAIN');
  rejectsSnapshot((snapshot) => (snapshot.blocks[1].timeFadeFactor = null), 'blocks[1].timeFadeFactor', 'WORKSPACE_INVALID_FACTOR');
  rejectsSnapshot((snapshot) => (snapshot.blocks[1].replaceFadeFactor = -3), 'blocks[1].replaceFadeFactor', 'WORKSPACE_INVALID_FACTOR');
  rejectsSnapshot((snapshot) => (snapshot.blocks[0].blockName = ''), 'blocks[0].blockName', 'WORKSPACE_EMPTY_TEXT');
  rejectsSnapshot((snapshot) => (snapshot.blocks[0].source = ''), 'blocks[0].source', 'WORKSPACE_EMPTY_TEXT');
  rejectsSnapshot((snapshot) => (snapshot.blocks[0].activationScore = 150), 'blocks[0].activationScore', 'WORKSPACE_INVALID_NUMBER');
  rejectsSnapshot((snapshot) => (snapshot.blocks[0].urgency = 'urgent'), 'blocks[0].urgency', 'WORKSPACE_UNKNOWN_URGENCY');
  rejectsSnapshot((snapshot) => delete snapshot.blocks[1].abstractBlock.urgency, 'blocks[1].abstractBlock.urgency', 'WORKSPACE_UNKNOWN_URGENCY');
  rejectsSnapshot((snapshot) => (snapshot.blocks[1].sequence = 0), 'blocks[1].sequence', 'WORKSPACE_INVALID_NUMBER');
  rejectsSnapshot((snapshot) => (snapshot.blocks = {}), 'blocks', 'WORKSPACE_INVALID_TYPE');
});

test('custom domains in a snapshot restore only when the restoring workspace declares them', () => {
  const snapshot = JSON.parse(JSON.stringify(GOLDEN_V1)) as { blocks: { focusedOn: string[] }[] };
  snapshot.blocks[0]!.focusedOn = ['PLANNING'];
  assert.throws(() => ContextWorkspace.restore(snapshot), /blocks\[0\]\.focusedOn\[0\]/);
  const restored = ContextWorkspace.restore(snapshot, { now: () => 61_000, customDomains: ['PLANNING'] });
  assert.deepEqual(restored.blocks()[0]?.block.focusedOn, ['PLANNING']);
});
