import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WorkerSkillFormatError } from './errors/worker-skill-format-error.js';
import { parseSkillMarkdown } from './parse-skill-markdown.js';
import { WORKED_SKILL_FILES } from './testing/worked-example.js';

test('reads frontmatter fields and the body', () => {
  const skill = parseSkillMarkdown({ text: WORKED_SKILL_FILES['narrator']!, file: 'workers/narrator/SKILL.md', name: 'narrator' });
  assert.equal(skill.name, 'narrator');
  assert.equal(skill.description, '叙述者：根据事件与用户输入续写本轮叙述。');
  assert.deepEqual(skill.outputTags, ['运行.叙述']);
  assert.deepEqual(skill.finalTags, ['运行.叙述']);
  assert.deepEqual(skill.contextSegments?.[2], { id: 'events', tier: 'dynamic', tags: ['运行.事件流'], policy: 'tail_lines_2', label: '## 事件' });
  assert.deepEqual(skill.variants, { short_emotion_flow: { policies: { events: 'tail_lines_1', history: 'last_2_turns' } } });
  assert.deepEqual(skill.contextIsolation, { mode: 'none' });
  assert.equal(skill.body, '你是叙述者。用第二人称写本轮叙述，不超过三句。\n自检：没有替用户行动。');
  const reviewer = parseSkillMarkdown({ text: WORKED_SKILL_FILES['reviewer']!, file: 'r.md' });
  assert.deepEqual(reviewer.contextIsolation, { mode: 'blind_review', hiddenTags: ['核心.危险.隐藏'] });
  const roles = parseSkillMarkdown({ text: WORKED_SKILL_FILES['role-decide']!, file: 'r.md' });
  assert.deepEqual(roles.contextIsolation, { mode: 'role_pov', roleTagsPrefix: '角色', userOnlyTags: ['用户.心理', '用户.心理.*'] });
});

function formatError(text: string): WorkerSkillFormatError {
  try {
    parseSkillMarkdown({ text, file: 'workers/x/SKILL.md', name: 'x' });
  } catch (error) {
    if (WorkerSkillFormatError.isInstance(error)) return error;
    throw error;
  }
  assert.fail('expected a WorkerSkillFormatError');
}

test('malformed frontmatter names the file and the line', () => {
  const unclosedFlow = formatError(['---', 'name: x', 'inputTags: ["运行.事件流"]', 'outputTags: ["运行.叙述"', 'contextIsolation: none', '---', 'body'].join('\n'));
  assert.equal(unclosedFlow.file, 'workers/x/SKILL.md');
  // The parser finds the unclosed list on the next line, where a mapping key appears inside it.
  assert.equal(unclosedFlow.line, 5);
  assert.match(unclosedFlow.message, /^workers\/x\/SKILL\.md:5: malformed YAML frontmatter/);

  const badIndent = formatError(['---', 'name: x', 'inputTags: [a]', 'contextSegments:', '  - id: p', '    tier: static', '   tags: [a]', '---'].join('\n'));
  assert.equal(badIndent.line, 7);

  const noOpening = formatError('name: x\n---\n');
  assert.equal(noOpening.line, 1);
  const neverClosed = formatError('---\nname: x\ninputTags: [a]\n');
  assert.equal(neverClosed.line, 4);
});

test('a field of the wrong type names the file, line and field', () => {
  const text = ['---', 'name: x', 'inputTags: [a, b]', 'contextSegments:', '  - id: p', '    tier: static', '    tags: [a]', '  - id: q', '    tier: middle', '    tags: [b]', '---', 'body'].join('\n');
  const error = formatError(text);
  assert.equal(error.line, 9);
  assert.equal(error.field, 'contextSegments[1].tier');
  assert.match(error.message, /contextSegments\[1\]\.tier must be static or dynamic, not "middle"/);

  const missing = formatError(['---', 'name: x', 'outputTags: [a]', '---'].join('\n'));
  assert.equal(missing.field, 'inputTags');

  const notAList = formatError(['---', 'name: x', 'inputTags: a', '---'].join('\n'));
  assert.equal(notAList.line, 3);
  assert.equal(notAList.field, 'inputTags');

  const nonString = formatError(['---', 'name: x', 'inputTags:', '  - a', '  - 3', '---'].join('\n'));
  assert.equal(nonString.line, 5);
  assert.equal(nonString.field, 'inputTags[1]');

  const isolation = formatError(['---', 'name: x', 'inputTags: [a]', 'contextIsolation: secret', '---'].join('\n'));
  assert.equal(isolation.line, 4);

  const renamed = formatError(['---', 'name: y', 'inputTags: [a]', '---'].join('\n'));
  assert.equal(renamed.line, 2);
  assert.match(renamed.message, /differs from its folder "x"/);
});
