import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SkillContractError } from './errors/skill-contract-error.js';
import { workedSkills } from './testing/worked-example.js';
import { skillViolations, validateSkill } from './validate-skill.js';
import type { WorkerSkill } from './worker-skill.js';

const sound: WorkerSkill = {
  name: 'narrator',
  file: 'workers/narrator/SKILL.md',
  inputTags: ['角色卡.确认稿', '运行.*', '对话.历史'],
  outputTags: ['运行.叙述'],
  finalTags: ['运行.叙述'],
  contextSegments: [
    { id: 'persona', tier: 'static', tags: ['角色卡.确认稿'] },
    { id: 'events', tier: 'dynamic', tags: ['运行.事件流'], policy: 'tail_lines_80' },
    { id: 'history', tier: 'dynamic', tags: ['对话.历史'] },
  ],
  contextIsolation: { mode: 'none' },
  variants: { short: { policies: { history: 'last_2_turns' } } },
  body: '你是叙述者。',
};

function only(skill: WorkerSkill): [string, string] {
  const violations = skillViolations(skill);
  assert.equal(violations.length, 1, JSON.stringify(violations));
  return [violations[0]!.code, violations[0]!.field];
}

const segments = sound.contextSegments!;

test('the worked skills and the sound skill pass', () => {
  assert.deepEqual(skillViolations(sound), []);
  for (const skill of workedSkills().values()) assert.deepEqual(skillViolations(skill), [], skill.name);
});

test('each checklist violation is reported with its code and field', () => {
  const cases: [Partial<WorkerSkill>, [string, string]][] = [
    [{ contextSegments: [segments[0]!, { ...segments[1]!, tags: ['世界.蓝图'] }, segments[2]!] }, ['SKILL_SEGMENT_OUTSIDE_INPUT_TAGS', 'contextSegments[1].tags[0]']],
    [{ contextSegments: [segments[0]!, { ...segments[1]!, tags: ['**'] }, segments[2]!] }, ['SKILL_SEGMENT_OUTSIDE_INPUT_TAGS', 'contextSegments[1].tags[0]']],
    [{ contextSegments: [segments[0]!, { ...segments[1]!, tags: [] }, segments[2]!] }, ['SKILL_SEGMENT_TAGS_EMPTY', 'contextSegments[1].tags']],
    [{ contextSegments: [segments[0]!], variants: {} }, ['SKILL_TIER_MISSING', 'contextSegments']],
    [{ contextSegments: [segments[1]!, segments[2]!] }, ['SKILL_TIER_MISSING', 'contextSegments']],
    [{ contextSegments: [segments[0]!, { ...segments[1]!, policy: 'tail_lines' }, segments[2]!] }, ['SKILL_POLICY_INVALID', 'contextSegments[1].policy']],
    [{ contextSegments: [{ ...segments[0]!, policy: 'concat' }, segments[1]!, segments[2]!] }, ['SKILL_POLICY_ON_STATIC', 'contextSegments[0].policy']],
    [{ contextSegments: [segments[0]!, segments[1]!, { ...segments[2]!, id: 'events' }], variants: {} }, ['SKILL_SEGMENT_ID_DUPLICATE', 'contextSegments[2].id']],
    [{ variants: { short: { policies: { dialogue: 'last_2_turns' } } } }, ['SKILL_VARIANT_UNKNOWN_SEGMENT', 'variants.short.policies.dialogue']],
    [{ variants: { short: { segments: [{ id: 'scene', tier: 'static' }] } } }, ['SKILL_VARIANT_UNKNOWN_SEGMENT', 'variants.short.segments[0].id']],
    [{ variants: { short: { omitSegments: ['scene'] } } }, ['SKILL_VARIANT_UNKNOWN_SEGMENT', 'variants.short.omitSegments[0]']],
    [{ variants: { short: { policies: { history: 'newest' } } } }, ['SKILL_POLICY_INVALID', 'variants.short.policies.history']],
    [{ variants: { short: { segments: [{ id: 'events', tags: ['设计.worker集'] }] } } }, ['SKILL_SEGMENT_OUTSIDE_INPUT_TAGS', 'variants.short.segments[0].tags[0]']],
    [{ inputTags: ['角色卡.确认稿', '运行.*', '对话.历史', '对话..旧'] }, ['SKILL_TAG_PATTERN_INVALID', 'inputTags[3]']],
    [{ inputTags: [], contextSegments: undefined, variants: {} }, ['SKILL_INPUT_TAGS_EMPTY', 'inputTags']],
    [{ outputTags: ['运行.*'], finalTags: [] }, ['SKILL_OUTPUT_TAG_INVALID', 'outputTags[0]']],
    [{ finalTags: ['运行.草稿'] }, ['SKILL_FINAL_TAG_NOT_OUTPUT', 'finalTags[0]']],
    [{ contextIsolation: { mode: 'blind_review', hiddenTags: [] } }, ['SKILL_ISOLATION_HIDDEN_EMPTY', 'hiddenTags']],
    [{ contextSegments: [] , variants: {} }, ['SKILL_SEGMENTS_EMPTY', 'contextSegments']],
    [{ contextSegments: undefined }, ['SKILL_VARIANT_WITHOUT_SEGMENTS', 'variants.short']],
  ];
  for (const [change, expected] of cases) {
    assert.deepEqual(only({ ...sound, ...change }), expected, JSON.stringify(change));
  }
});

test('validateSkill throws one error naming the skill and every field', () => {
  const broken: WorkerSkill = { ...sound, finalTags: ['运行.草稿'], variants: { short: { omitSegments: ['scene'] } } };
  assert.throws(
    () => validateSkill(broken),
    (error) =>
      SkillContractError.isInstance(error) &&
      error.skill === 'narrator' &&
      error.violations.length === 2 &&
      error.message.startsWith('skill "narrator" breaks its contract:') &&
      error.message.includes('finalTags[0]: "运行.草稿" is not one of outputTags') &&
      error.message.includes('variants.short.omitSegments[0]: "scene" names no segment'),
  );
});
