// The seed's entry points are public under the seed's names: `assembleWorkerContext` (the single
// assembly point) and `filterInputsForRolePerspective` (role_pov isolation), from the package index.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigurationError } from '@strata/context';
import * as blackboard from './index.js';
import { WORKED_SHARED_CONTEXT, workedEntries, workedSkills } from './testing/worked-example.js';

const ROLE_OPTIONS = { roleTagsPrefix: '角色', userOnlyTags: ['用户.心理'] };

test('assembleWorkerContext from the index is the flat form of assembleWorkerContextSections', () => {
  const contract = blackboard.resolveWorkerContract({ skill: workedSkills().get('world-simulator')! });
  const options = { contract, entries: workedEntries(), sharedContext: WORKED_SHARED_CONTEXT, task: '推进一步。' };
  const flat = blackboard.assembleWorkerContext(options);
  assert.deepEqual(flat, blackboard.flattenWorkerContext(blackboard.assembleWorkerContextSections(options)));
  assert.ok(flat.system.length > 0 && flat.user.endsWith('推进一步。'));
});

test('filterInputsForRolePerspective from the index keeps the worker\'s own role and hides other roles and user-only tags', () => {
  const entries = workedEntries();
  const kept = blackboard.filterInputsForRolePerspective(entries, { ...ROLE_OPTIONS, pov: '林晚' }).map((entry) => entry.tag);
  assert.ok(kept.some((tag) => tag.startsWith('角色.林晚')));
  assert.ok(!kept.some((tag) => tag.startsWith('角色.男人') || tag === '用户.心理'));
  assert.ok(kept.some((tag) => !tag.startsWith('角色.')), 'tags of no role are kept');
  const nobody = blackboard.filterInputsForRolePerspective(entries, ROLE_OPTIONS).map((entry) => entry.tag);
  assert.ok(!nobody.some((tag) => tag.startsWith('角色.')));
});

test('filterInputsForRolePerspective takes any value: a ConfigurationError naming the field', () => {
  const cases: Array<[unknown, unknown, string]> = [
    [null, ROLE_OPTIONS, 'entries'],
    ['角色.林晚', ROLE_OPTIONS, 'entries'],
    [[{ tag: 'a' }, { value: 1 }], ROLE_OPTIONS, 'entries[1].tag'],
    [[null], ROLE_OPTIONS, 'entries[0].tag'],
    [[], undefined, 'roleTagsPrefix'],
    [[], { roleTagsPrefix: 3, userOnlyTags: [] }, 'roleTagsPrefix'],
    [[], { roleTagsPrefix: '角色' }, 'userOnlyTags'],
    [[], { roleTagsPrefix: '角色', userOnlyTags: [1] }, 'userOnlyTags'],
    [[], { ...ROLE_OPTIONS, pov: 5 }, 'pov'],
  ];
  for (const [entries, options, setting] of cases) {
    assert.throws(
      () => blackboard.filterInputsForRolePerspective(entries as never, options as never),
      (error: unknown) => ConfigurationError.isInstance(error) && error.setting === setting,
      `${JSON.stringify(entries)} ${JSON.stringify(options)} -> ${setting}`,
    );
  }
});
