import type { BlackboardEntry } from '../blackboard-store.js';
import type { WorkerMessage } from '../worker-message.js';
import { parseSkillMarkdown } from '../parse-skill-markdown.js';
import type { WorkerSkill } from '../worker-skill.js';

/**
 * A small role-play workflow used by the golden tests: a persona, a world,
 * an event stream, a dialogue, the user's input, role and hidden tags, and
 * five workers covering the bag form (narrator), the flat form
 * (world-simulator), the JSON fallback (director), `role_pov` (role-decide)
 * and `blind_review` (reviewer). Exported so cross-package tests (a scripted
 * model behind `run_worker`) can reuse it.
 */
export const WORKED_SHARED_CONTEXT = '体裁：第二人称互动小说。\n不替用户做决定。';

export const WORKED_SKILL_FILES: Readonly<Record<string, string>> = Object.freeze({
  narrator: `---
name: narrator
description: 叙述者：根据事件与用户输入续写本轮叙述。
inputTags: ["角色卡.确认稿", "世界.蓝图", "运行.事件流", "对话.历史", "可见信息", "用户.最新输入", "上下文.定稿摘要"]
outputTags: ["运行.叙述"]
contextSegments:
  - id: persona
    tier: static
    tags: ["角色卡.确认稿"]
    label: "## 角色设定"
  - id: world
    tier: static
    tags: ["世界.蓝图"]
    label: "## 世界"
  - id: events
    tier: dynamic
    tags: ["运行.事件流"]
    policy: tail_lines_2
    label: "## 事件"
  - id: history
    tier: dynamic
    tags: ["对话.历史"]
    policy: last_4_turns
  - id: turn
    tier: dynamic
    tags: ["可见信息", "用户.最新输入"]
    label: "## 本轮"
variants:
  short_emotion_flow:
    policies:
      events: tail_lines_1
      history: last_2_turns
---
你是叙述者。用第二人称写本轮叙述，不超过三句。
自检：没有替用户行动。
`,
  'world-simulator': `---
name: world-simulator
inputTags: ["世界.蓝图", "运行.*", "用户.最新输入", "创作.已验收内容.*"]
outputTags: ["运行.事件流", "可见信息"]
finalTags: ["可见信息"]
contextSegments:
  - id: world
    tier: static
    tags: ["世界.蓝图"]
    label: "## 世界"
  - id: recap
    tier: static
    tags: ["创作.已验收内容.*"]
  - id: events
    tier: dynamic
    tags: ["运行.事件流"]
    policy: concat
    label: "## 事件流"
  - id: input
    tier: dynamic
    tags: ["用户.最新输入"]
    label: "## 用户输入"
---
你是世界模拟器。输出 JSON：{"运行.事件流": 新事件行, "可见信息": 用户此刻能看见的}。
`,
  director: `---
name: director
inputTags: ["运行.事件流", "用户.最新输入"]
outputTags: ["运行.导演指示"]
---
你是导演。
`,
  'role-decide': `---
name: role-decide
inputTags: ["角色.*", "用户.*", "可见信息", "世界.蓝图"]
outputTags: ["运行.角色决定"]
contextIsolation: role_pov
contextSegments:
  - id: world
    tier: static
    tags: ["世界.蓝图"]
    label: "## 世界"
  - id: roles
    tier: dynamic
    tags: ["角色.*"]
    policy: concat
    label: "## 角色"
  - id: seen
    tier: dynamic
    tags: ["可见信息", "用户.*"]
    policy: concat
    label: "## 所见"
---
你替一个角色做决定。
`,
  reviewer: `---
name: reviewer
inputTags: ["运行.叙述", "核心.*", "世界.蓝图"]
outputTags: ["运行.审阅意见"]
contextIsolation: blind_review
hiddenTags: ["核心.危险.隐藏"]
contextSegments:
  - id: world
    tier: static
    tags: ["世界.蓝图"]
    label: "## 世界"
  - id: draft
    tier: dynamic
    tags: ["运行.叙述"]
    label: "## 待审"
  - id: core
    tier: dynamic
    tags: ["核心.*"]
    policy: concat
    label: "## 核心"
---
你审阅叙述是否违背主线。
`,
});

/** The worked example's skills, parsed (file paths are nominal). */
export function workedSkills(): Map<string, WorkerSkill> {
  return new Map(
    Object.keys(WORKED_SKILL_FILES)
      .sort()
      .map((name) => [name, parseSkillMarkdown({ text: WORKED_SKILL_FILES[name] as string, file: `workers/${name}/SKILL.md`, name })]),
  );
}

const WRITTEN_AT = '2026-01-02T03:04:05.000Z';

/** The blackboard of the worked example, revisions 1..20. */
export function workedEntries(): BlackboardEntry[] {
  const rows: [string, string, BlackboardEntry['author'], string?][] = [
    ['角色卡.确认稿', '林晚，二十七岁，雾港夜班药剂师。说话简短，怕黑。', { kind: 'user' }],
    ['世界.蓝图', '雾港：常年起雾的海港小城。晚上十点后渡轮停运。', { kind: 'worker', name: 'world-builder' }, 'final'],
    ['创作.已验收内容.第一章', '初稿：雨夜，药房。', { kind: 'worker', name: 'writer' }, 'final'],
    ['创作.已验收内容.第一章', '雨夜，林晚独自值班。', { kind: 'worker', name: 'writer' }, 'final'],
    ['创作.已验收内容.第二章', '陌生男人推门而入。', { kind: 'worker', name: 'writer' }, 'final'],
    ['运行.事件流', '22:00 药房只剩林晚一人。\n22:05 门铃响了。', { kind: 'worker', name: 'world-simulator' }],
    ['运行.事件流', '22:06 一个湿透的男人走进来。', { kind: 'worker', name: 'world-simulator' }],
    ['对话.历史', '我抬头看向门口。', { kind: 'user' }],
    ['对话.历史', '你看见一个湿透的男人站在门口。', { kind: 'worker', name: 'narrator' }],
    ['对话.历史', '我问他需要什么。', { kind: 'user' }],
    ['对话.历史', '他说要一盒安眠药，声音很低。', { kind: 'worker', name: 'narrator' }],
    ['可见信息', '男人的左手藏在口袋里。', { kind: 'worker', name: 'world-simulator' }],
    ['角色.林晚.内心', '她觉得这个男人很眼熟。', { kind: 'worker', name: 'role-decide' }],
    ['角色.男人.秘密', '他是三年前失踪的渡轮船长。', { kind: 'worker', name: 'world-builder' }],
    ['核心.危险.隐藏', '男人口袋里有一把刀。', { kind: 'worker', name: 'world-builder' }],
    ['核心.主线', '男人来托付一封信。', { kind: 'worker', name: 'world-builder' }],
    ['用户.心理', '我其实很害怕。', { kind: 'user' }],
    ['上下文.定稿摘要', '第一幕：雨夜，陌生男人来药房买安眠药。', { kind: 'runtime' }, 'final'],
    ['用户.最新输入', '我把药递给他，问他叫什么名字。', { kind: 'user' }],
    ['运行.叙述', '他接过药，没有回答。', { kind: 'worker', name: 'narrator' }, 'final'],
  ];
  return rows.map(([tag, content, author, role], index) => ({
    tag,
    content,
    author,
    ...(role === undefined ? {} : { role }),
    revision: index + 1,
    createdAt: WRITTEN_AT,
  }));
}

/** The task given to the narrator in the golden tests. */
export const WORKED_NARRATOR_TASK = '写本轮叙述。';

/**
 * The narrator's prompt over `workedEntries()` with `WORKED_SHARED_CONTEXT`,
 * `WORKED_NARRATOR_TASK` and the default preset, written by hand: what a
 * model behind `run_worker({ skill: 'narrator', task })` must receive.
 */
export const WORKED_NARRATOR_MESSAGES: readonly WorkerMessage[] = Object.freeze([
  {
    role: 'system',
    content:
      '体裁：第二人称互动小说。\n不替用户做决定。\n\n' +
      '你是叙述者。用第二人称写本轮叙述，不超过三句。\n自检：没有替用户行动。\n\n' +
      '## 角色设定\n林晚，二十七岁，雾港夜班药剂师。说话简短，怕黑。\n\n' +
      '## 世界\n雾港：常年起雾的海港小城。晚上十点后渡轮停运。\n\n' +
      '## 事件\n22:05 门铃响了。\n22:06 一个湿透的男人走进来。',
  },
  { role: 'system', content: '## 本轮\n男人的左手藏在口袋里。' },
  { role: 'user', content: '我抬头看向门口。' },
  { role: 'assistant', content: '你看见一个湿透的男人站在门口。' },
  { role: 'user', content: '我问他需要什么。' },
  { role: 'assistant', content: '他说要一盒安眠药，声音很低。' },
  { role: 'user', content: '我把药递给他，问他叫什么名字。' },
  { role: 'system', content: '## 定稿摘要\n第一幕：雨夜，陌生男人来药房买安眠药。\n\n## 本步任务\n写本轮叙述。' },
]);
