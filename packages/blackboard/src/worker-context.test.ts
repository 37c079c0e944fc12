import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { assembleWorkerMessages } from './assemble-worker-messages.js';
import type { Preset } from './preset.js';
import { resolveWorkerContract } from './resolve-worker-contract.js';
import { WORKED_SHARED_CONTEXT, workedEntries, workedSkills } from './testing/worked-example.js';
import { assembleWorkerContext, flatWorkerMessages } from './worker-context.js';
import { assembleWorkerContextSections } from './worker-context-sections.js';

const skills = workedSkills();
const contractOf = (name: string) => resolveWorkerContract({ skill: skills.get(name)! });

const WORLD = '## 世界\n雾港：常年起雾的海港小城。晚上十点后渡轮停运。';

test('flat form: static on top as system, dynamic then the tail as user (world-simulator)', () => {
  const flat = assembleWorkerContext({ contract: contractOf('world-simulator'), entries: workedEntries(), sharedContext: WORKED_SHARED_CONTEXT, task: '推进一步。' });
  assert.equal(
    flat.system,
    [
      '体裁：第二人称互动小说。\n不替用户做决定。',
      '你是世界模拟器。输出 JSON：{"运行.事件流": 新事件行, "可见信息": 用户此刻能看见的}。',
      WORLD,
      '【前情提要·只读】\n### 第一章\n雨夜，林晚独自值班。\n### 第二章\n陌生男人推门而入。',
    ].join('\n\n'),
  );
  assert.equal(
    flat.user,
    '## 事件流\n22:00 药房只剩林晚一人。\n22:05 门铃响了。\n22:06 一个湿透的男人走进来。\n\n## 用户输入\n我把药递给他，问他叫什么名字。\n\n## 本步任务\n推进一步。',
  );
  assert.deepEqual(flat.diagnostics, []);
});

test('flat form messages: preset entries on top, then the system and user parts', () => {
  const preset: Preset = {
    id: 'house',
    generation: { temperature: 0.7 },
    slots: [
      { kind: 'prompt', identifier: 'main', role: 'system', content: '你是一位严谨的作者。' },
      { kind: 'bag', identifier: 'before', bag: 'before' },
      { kind: 'prompt', identifier: 'style', role: 'system', content: '文风：短句。' },
      { kind: 'bag', identifier: 'history', bag: 'history' },
    ],
  };
  const sections = assembleWorkerContextSections({ contract: contractOf('director'), entries: workedEntries() });
  const assembled = assembleWorkerMessages({ sections, preset });
  assert.equal(assembled.form, 'flat');
  assert.deepEqual(assembled.messages, [
    { role: 'system', content: '你是一位严谨的作者。' },
    { role: 'system', content: '文风：短句。' },
    { role: 'system', content: '你是导演。' },
    { role: 'user', content: '{\n  "运行.事件流": "22:06 一个湿透的男人走进来。",\n  "用户.最新输入": "我把药递给他，问他叫什么名字。"\n}' },
  ]);
});

test('without contextSegments the inputs go as JSON in inputTags order (newest entry per tag)', () => {
  const sections = assembleWorkerContextSections({ contract: contractOf('director'), entries: [...workedEntries()].reverse() });
  assert.equal(sections.form, 'fallback');
  assert.deepEqual(sections.chunks.map((chunk) => [chunk.kind, chunk.id, chunk.tier]), [
    ['block', 'skill-body', 'static'],
    ['block', 'inputs', 'dynamic'],
  ]);
  const inputs = sections.chunks[1];
  assert.ok(inputs?.kind === 'block');
  assert.deepEqual(JSON.parse(inputs.text), { '运行.事件流': '22:06 一个湿透的男人走进来。', '用户.最新输入': '我把药递给他，问他叫什么名字。' });
  assert.deepEqual(Object.keys(JSON.parse(inputs.text)), ['运行.事件流', '用户.最新输入']);
});

test('role_pov shows the worker its own role and hides other roles and the user\'s thoughts', () => {
  const contract = contractOf('role-decide');
  const asLinWan = assembleWorkerContext({ contract, entries: workedEntries(), pov: '林晚' });
  assert.deepEqual(flatWorkerMessages(asLinWan), [
    { role: 'system', content: `你替一个角色做决定。\n\n${WORLD}` },
    { role: 'user', content: '## 角色\n她觉得这个男人很眼熟。\n\n## 所见\n男人的左手藏在口袋里。\n\n我把药递给他，问他叫什么名字。' },
  ]);
  assert.deepEqual(asLinWan.diagnostics.map((diagnostic) => [diagnostic.code, diagnostic.subject]), [
    ['BLACKBOARD_ISOLATION_HIDDEN', '用户.心理'],
    ['BLACKBOARD_ISOLATION_HIDDEN', '角色.男人.秘密'],
  ]);
  const asStranger = assembleWorkerContext({ contract, entries: workedEntries(), pov: '男人' });
  assert.equal(asStranger.user, '## 角色\n他是三年前失踪的渡轮船长。\n\n## 所见\n男人的左手藏在口袋里。\n\n我把药递给他，问他叫什么名字。');
  const nobody = assembleWorkerContext({ contract, entries: workedEntries() });
  assert.equal(nobody.user, '## 所见\n男人的左手藏在口袋里。\n\n我把药递给他，问他叫什么名字。');
  assert.ok(nobody.diagnostics.some((diagnostic) => diagnostic.code === 'BLACKBOARD_SEGMENT_EMPTY' && diagnostic.subject === 'roles'));
});

test('blind_review hides exactly the declared tags', () => {
  const contract = contractOf('reviewer');
  const review = assembleWorkerContext({ contract, entries: workedEntries() });
  assert.deepEqual(flatWorkerMessages(review), [
    { role: 'system', content: `你审阅叙述是否违背主线。\n\n${WORLD}` },
    { role: 'user', content: '## 待审\n他接过药，没有回答。\n\n## 核心\n男人来托付一封信。' },
  ]);
  assert.deepEqual(review.diagnostics.map((diagnostic) => diagnostic.subject), ['核心.危险.隐藏']);
  const unisolated = assembleWorkerContext({ contract: { ...contract, isolation: { mode: 'none' } }, entries: workedEntries() });
  assert.equal(unisolated.user, '## 待审\n他接过药，没有回答。\n\n## 核心\n男人口袋里有一把刀。\n男人来托付一封信。');
});

test('entries outside inputTags never reach the prompt, whatever the caller passes', () => {
  const flat = assembleWorkerContext({ contract: contractOf('reviewer'), entries: workedEntries() });
  for (const secret of ['林晚，二十七岁', '我其实很害怕', '三年前失踪']) {
    assert.equal(flat.system.includes(secret) || flat.user.includes(secret), false, secret);
  }
});

test('the order entries arrive in does not change the prompt (property)', () => {
  const entries = workedEntries();
  const expected = Object.fromEntries(
    ['world-simulator', 'narrator', 'role-decide', 'reviewer', 'director'].map((name) => [name, assembleWorkerContext({ contract: contractOf(name), entries, pov: '林晚' })]),
  );
  fc.assert(
    fc.property(fc.shuffledSubarray(entries, { minLength: entries.length, maxLength: entries.length }), (shuffled) => {
      for (const [name, flat] of Object.entries(expected)) {
        assert.deepEqual(assembleWorkerContext({ contract: contractOf(name), entries: shuffled, pov: '林晚' }), flat);
      }
    }),
    { numRuns: 50 },
  );
});

test('same input, same bytes', () => {
  const once = assembleWorkerContext({ contract: contractOf('world-simulator'), entries: workedEntries(), sharedContext: WORKED_SHARED_CONTEXT });
  const twice = assembleWorkerContext({ contract: contractOf('world-simulator'), entries: workedEntries(), sharedContext: WORKED_SHARED_CONTEXT });
  assert.deepEqual(once, twice);
});

test('the tail carries the final summary, the draft under revision and the task, the task last', () => {
  const contract = contractOf('world-simulator');
  const sections = assembleWorkerContextSections({
    contract: { ...contract, inputTags: [...contract.inputTags, '上下文.定稿摘要'] },
    entries: workedEntries(),
    draftTag: '运行.叙述',
    task: '  修改底稿。  ',
  });
  assert.deepEqual(sections.tail, [
    { kind: 'final-summary', label: '## 定稿摘要', text: '第一幕：雨夜，陌生男人来药房买安眠药。' },
    { kind: 'draft', label: '## 待改底稿', text: '他接过药，没有回答。' },
    { kind: 'task', label: '## 本步任务', text: '修改底稿。' },
  ]);
  // A draft tag outside the whitelist is the caller's mistake, named.
  assert.throws(() => assembleWorkerContextSections({ contract, entries: workedEntries(), draftTag: '核心.主线' }), /draft tag "核心\.主线" is not within the inputTags of world-simulator/);
});
