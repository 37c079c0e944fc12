import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assembleWorkerMessages } from './assemble-worker-messages.js';
import { parseContextOrder } from './context-order.js';
import { parseInstanceManifest } from './instance-manifest.js';
import { resolveWorkerContract } from './resolve-worker-contract.js';
import { WORKED_NARRATOR_MESSAGES, WORKED_NARRATOR_TASK, WORKED_SHARED_CONTEXT, workedEntries, workedSkills } from './testing/worked-example.js';
import { flattenWorkerContext } from './worker-context.js';
import { workerContextToBags } from './worker-context-bags.js';
import { assembleWorkerContextSections, type AssembleWorkerContextOptions } from './worker-context-sections.js';
import type { WorkerMessage } from './worker-message.js';
import { CODE_POINT_ESTIMATOR } from './testing/fixtures.js';

const skills = workedSkills();
const narrator = skills.get('narrator')!;

const SHARED = '体裁：第二人称互动小说。\n不替用户做决定。';
const BODY = '你是叙述者。用第二人称写本轮叙述，不超过三句。\n自检：没有替用户行动。';
const PERSONA = '## 角色设定\n林晚，二十七岁，雾港夜班药剂师。说话简短，怕黑。';
const WORLD = '## 世界\n雾港：常年起雾的海港小城。晚上十点后渡轮停运。';
const POST_TURN = '## 定稿摘要\n第一幕：雨夜，陌生男人来药房买安眠药。\n\n## 本步任务\n写本轮叙述。';

function narratorMessages(options: Partial<AssembleWorkerContextOptions> & { variant?: string; historyPolicy?: string } = {}) {
  const { variant, historyPolicy, ...rest } = options;
  const contract = resolveWorkerContract({
    skill: narrator,
    ...(variant === undefined ? {} : { variant }),
    ...(historyPolicy === undefined ? {} : { historyPolicy }),
  });
  const sections = assembleWorkerContextSections({ contract, entries: workedEntries(), sharedContext: WORKED_SHARED_CONTEXT, task: WORKED_NARRATOR_TASK, ...rest });
  return { sections, ...assembleWorkerMessages({ sections }) };
}

test('bag form with history: worldbook system messages, real turns, the current turn, the post-turn task', () => {
  const { sections, form, messages, diagnostics } = narratorMessages();
  assert.equal(form, 'bags');
  assert.deepEqual(messages, WORKED_NARRATOR_MESSAGES);
  assert.deepEqual(workerContextToBags(sections), {
    before: [
      { id: 'shared-context', text: SHARED },
      { id: 'skill-body', text: BODY },
      { id: 'persona', text: PERSONA },
      { id: 'world', text: WORLD },
      { id: 'events', text: '## 事件\n22:05 门铃响了。\n22:06 一个湿透的男人走进来。' },
    ],
    history: [
      { role: 'user', content: '我抬头看向门口。' },
      { role: 'assistant', content: '你看见一个湿透的男人站在门口。' },
      { role: 'user', content: '我问他需要什么。' },
      { role: 'assistant', content: '他说要一盒安眠药，声音很低。' },
    ],
    after: [{ id: 'turn', text: '## 本轮\n男人的左手藏在口袋里。' }],
    turn: ['我把药递给他，问他叫什么名字。'],
    postTurn: ['## 定稿摘要\n第一幕：雨夜，陌生男人来药房买安眠药。', '## 本步任务\n写本轮叙述。'],
  });
  assert.deepEqual(diagnostics.map((diagnostic) => [diagnostic.code, diagnostic.subject]), [['BLACKBOARD_POLICY_TRIMMED', '运行.事件流']]);
});

test('a variant and a profile history policy change what the history keeps', () => {
  const history = (messages: readonly WorkerMessage[]) => messages.slice(2, -2);
  assert.equal(history(narratorMessages().messages).length, 4);
  const variant = narratorMessages({ variant: 'short_emotion_flow' }).messages;
  assert.deepEqual(variant[0]?.content.endsWith('## 事件\n22:06 一个湿透的男人走进来。'), true);
  assert.deepEqual(history(variant), [
    { role: 'user', content: '我问他需要什么。' },
    { role: 'assistant', content: '他说要一盒安眠药，声音很低。' },
  ]);
  const manifest = parseInstanceManifest(
    { runSkills: ['narrator'], contextProfile: { narrator: { variant: 'short_emotion_flow', historyPolicy: 'last_1_turns' } } },
    { skills },
  );
  const profile = manifest.contextProfile['narrator']!;
  assert.deepEqual(history(narratorMessages({ variant: profile.variant!, historyPolicy: profile.historyPolicy! }).messages), [
    { role: 'assistant', content: '他说要一盒安眠药，声音很低。' },
  ]);
});

test('context_order form: the table\'s flat order; the history splits before from after', () => {
  const contextOrder = parseContextOrder(
    JSON.stringify({
      inserts: [
        { order: 3, tag: '用户.最新输入' },
        { order: 0, tag: '角色卡.确认稿' },
        { order: 2, tag: '世界.蓝图', label: '## 世界（真值）' },
        { order: 1, tag: '对话.历史', policy: 'last_2_turns' },
        { order: 4, tag: '核心.主线' },
      ],
    }),
  );
  const { sections, form, messages, diagnostics } = narratorMessages({ contextOrder });
  assert.equal(sections.form, 'context_order');
  assert.equal(form, 'bags');
  assert.deepEqual(messages, [
    { role: 'system', content: `${SHARED}\n\n${BODY}\n\n${PERSONA}` },
    {
      role: 'system',
      content: '## 世界（真值）\n雾港：常年起雾的海港小城。晚上十点后渡轮停运。\n\n## 事件\n22:05 门铃响了。\n22:06 一个湿透的男人走进来。\n\n男人的左手藏在口袋里。',
    },
    { role: 'user', content: '我问他需要什么。' },
    { role: 'assistant', content: '他说要一盒安眠药，声音很低。' },
    { role: 'user', content: '我把药递给他，问他叫什么名字。' },
    { role: 'system', content: POST_TURN },
  ]);
  assert.deepEqual(
    diagnostics.map((diagnostic) => [diagnostic.code, diagnostic.subject]),
    [
      ['BLACKBOARD_ORDER_OUTSIDE_CONTRACT', '核心.主线'],
      ['BLACKBOARD_ORDER_PATTERN_UNLISTED', '运行.事件流'],
      ['BLACKBOARD_ORDER_PATTERN_UNLISTED', '可见信息'],
      ['BLACKBOARD_POLICY_TRIMMED', '对话.历史'],
      ['BLACKBOARD_POLICY_TRIMMED', '运行.事件流'],
    ],
  );
  // The profile's history policy wins over the table's.
  const profiled = narratorMessages({ contextOrder, historyPolicy: 'last_1_turns' }).messages;
  assert.deepEqual(profiled.slice(2, 3), [{ role: 'assistant', content: '他说要一盒安眠药，声音很低。' }]);
});

test('the flat form of the same skill renders the history as a transcript', () => {
  const { sections } = narratorMessages();
  assert.deepEqual(flattenWorkerContext(sections), {
    system: `${SHARED}\n\n${BODY}\n\n${PERSONA}\n\n${WORLD}`,
    user: [
      '## 事件\n22:05 门铃响了。\n22:06 一个湿透的男人走进来。',
      'user: 我抬头看向门口。\nassistant: 你看见一个湿透的男人站在门口。\nuser: 我问他需要什么。\nassistant: 他说要一盒安眠药，声音很低。',
      '## 本轮\n男人的左手藏在口袋里。',
      '我把药递给他，问他叫什么名字。',
      POST_TURN,
    ].join('\n\n'),
    diagnostics: sections.diagnostics,
  });
});

test('tail_tokens_N in assembly keeps whole CJK lines only (28 fits two lines, 27 only one)', () => {
  const withBudget = (policy: string) => {
    const skill = { ...narrator, contextSegments: narrator.contextSegments!.map((segment) => (segment.id === 'events' ? { ...segment, policy } : segment)) };
    const contract = resolveWorkerContract({ skill });
    const sections = assembleWorkerContextSections({ contract, entries: workedEntries(), estimator: CODE_POINT_ESTIMATOR });
    const events = sections.chunks.find((chunk) => chunk.id === 'events');
    return events?.kind === 'block' ? events.text : undefined;
  };
  // Code points without newlines: "22:05 门铃响了。" = 11, "22:06 一个湿透的男人走进来。" = 17.
  assert.equal(withBudget('tail_tokens_28'), '22:05 门铃响了。\n22:06 一个湿透的男人走进来。');
  assert.equal(withBudget('tail_tokens_27'), '22:06 一个湿透的男人走进来。');
  assert.equal(withBudget('concat'), '22:00 药房只剩林晚一人。\n22:05 门铃响了。\n22:06 一个湿透的男人走进来。');
  assert.equal(withBudget('latest'), '22:06 一个湿透的男人走进来。');
  assert.equal(withBudget('tail_lines_3'), '22:00 药房只剩林晚一人。\n22:05 门铃响了。\n22:06 一个湿透的男人走进来。');
});
