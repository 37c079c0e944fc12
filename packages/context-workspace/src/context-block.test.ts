import { test } from 'node:test';
import assert from 'node:assert/strict';
import { contextBlock, ensureContextBlock, type ContextBlockInit } from './context-block.js';
import { ContextWorkspaceInputError } from './errors/context-workspace-input-error.js';
import { StrataError } from '@strata/context';

const base: ContextBlockInit = {
  blockName: 'memory',
  source: 'main',
  focusedOn: ['MEMORY'],
  blockContent: 'full text',
  replaceFadeFactor: 20,
  timeFadeFactor: 1,
  activateFactor: 5,
};

function rejects(init: Partial<Record<keyof ContextBlockInit, unknown>>, field: string, code: string): void {
  assert.throws(
    () => contextBlock({ ...base, ...init } as ContextBlockInit),
    (error: unknown) => {
      assert.ok(ContextWorkspaceInputError.isInstance(error), `expected a ContextWorkspaceInputError, got ${String(error)}`);
      assert.ok(StrataError.isInstance(error));
      assert.equal(error.kind, 'input');
      assert.equal(error.field, field);
      assert.equal(error.code, code);
      assert.ok(error.message.startsWith(field), `message names the field: ${error.message}`);
      return true;
    },
  );
}

test('compact defaults to full and abstract to compact, each with the block urgency', () => {
  const onlyFull = contextBlock({ ...base, urgency: 'HIGH' });
  assert.deepEqual(onlyFull.compactBlock, { content: 'full text', urgency: 'HIGH' });
  assert.deepEqual(onlyFull.abstractBlock, { content: 'full text', urgency: 'HIGH' });
  const withCompact = contextBlock({ ...base, compactBlock: { content: 'short', urgency: 'LOW' } });
  assert.deepEqual(withCompact.blockContent, { content: 'full text', urgency: 'NORMAL' });
  assert.deepEqual(withCompact.abstractBlock, { content: 'short', urgency: 'LOW' });
  assert.ok(Object.isFrozen(withCompact));
});

test('focusedOn is a set: duplicates collapse and the order is code-unit sorted', () => {
  const block = contextBlock({ ...base, focusedOn: new Set(['MEMORY', 'ACTION']) });
  assert.deepEqual(block.focusedOn, ['ACTION', 'MEMORY']);
  assert.deepEqual(contextBlock({ ...base, focusedOn: ['MEMORY', 'ACTION', 'MEMORY'] }).focusedOn, ['ACTION', 'MEMORY']);
});

test('empty block name or source is a clear error naming the field', () => {
  rejects({ blockName: '' }, 'blockName', 'WORKSPACE_EMPTY_TEXT');
  rejects({ source: '   ' }, 'source', 'WORKSPACE_EMPTY_TEXT');
  rejects({ source: 42 }, 'source', 'WORKSPACE_INVALID_TYPE');
  rejects({ blockName: '1memory' }, 'blockName', 'WORKSPACE_INVALID_NAME');
  rejects({ blockName: 'my memory' }, 'blockName', 'WORKSPACE_INVALID_NAME');
});

test('a NaN, negative or infinite factor is a clear error naming the factor', () => {
  rejects({ replaceFadeFactor: Number.NaN }, 'replaceFadeFactor', 'WORKSPACE_INVALID_FACTOR');
  rejects({ timeFadeFactor: -1 }, 'timeFadeFactor', 'WORKSPACE_INVALID_FACTOR');
  rejects({ activateFactor: Number.POSITIVE_INFINITY }, 'activateFactor', 'WORKSPACE_INVALID_FACTOR');
  rejects({ activateFactor: '5' }, 'activateFactor', 'WORKSPACE_INVALID_FACTOR');
  assert.equal(contextBlock({ ...base, activateFactor: 0 }).activateFactor, 0);
});

test('an empty focusedOn, an unknown urgency, a non-string content are clear errors', () => {
  rejects({ focusedOn: [] }, 'focusedOn', 'WORKSPACE_EMPTY_TEXT');
  rejects({ focusedOn: ['ACTION', ''] }, 'focusedOn[1]', 'WORKSPACE_EMPTY_TEXT');
  rejects({ focusedOn: 'ACTION' as unknown }, 'focusedOn', 'WORKSPACE_INVALID_TYPE');
  rejects({ urgency: 'URGENT' }, 'urgency', 'WORKSPACE_UNKNOWN_URGENCY');
  rejects({ compactBlock: { content: 'x', urgency: 'high' } }, 'compactBlock.urgency', 'WORKSPACE_UNKNOWN_URGENCY');
  rejects({ blockContent: 7 }, 'blockContent', 'WORKSPACE_INVALID_TYPE');
  rejects({ abstractBlock: { content: null } }, 'abstractBlock.content', 'WORKSPACE_INVALID_TYPE');
});

test('ensureContextBlock keeps a validated block and validates a hand-built literal', () => {
  const block = contextBlock(base);
  assert.equal(ensureContextBlock(block), block);
  const literal = { ...base };
  assert.notEqual(ensureContextBlock(literal), literal);
  assert.throws(() => ensureContextBlock({ ...base, timeFadeFactor: Number.NaN }), /timeFadeFactor/);
});
