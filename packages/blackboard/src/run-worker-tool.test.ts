import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ToolExecutionContext } from '@strata/context';
import type { BlackboardStore } from './blackboard-store.js';
import { parseInstanceManifest } from './instance-manifest.js';
import { MemoryBlackboardStore } from './memory-blackboard-store.js';
import { createReadBlackboardTool } from './read-blackboard-tool.js';
import { createRunWorkerTool } from './run-worker-tool.js';
import { WORKED_NARRATOR_MESSAGES, WORKED_NARRATOR_TASK, WORKED_SHARED_CONTEXT, workedEntries, workedSkills } from './testing/worked-example.js';
import type { WorkerModel, WorkerModelRequest } from './worker-model.js';

/** A deterministic model: records each request and answers from a script (a text or an error). */
class RecordingModel implements WorkerModel {
  readonly requests: WorkerModelRequest[] = [];
  readonly #replies: (string | Error)[];
  #onCall: (() => Promise<void>) | undefined;

  constructor(replies: (string | Error)[], onCall?: () => Promise<void>) {
    this.#replies = replies;
    this.#onCall = onCall;
  }

  async generate(request: WorkerModelRequest): Promise<{ text: string }> {
    this.requests.push(request);
    await this.#onCall?.();
    const reply = this.#replies.shift();
    if (reply === undefined) throw new Error('script exhausted');
    if (reply instanceof Error) throw reply;
    return { text: reply };
  }
}

const NOW = new Date('2026-01-02T03:04:05.000Z');
const context = (): ToolExecutionContext => ({ contextId: 'c1', toolCallId: `call-${Math.random()}`, signal: new AbortController().signal });

function setup(model: WorkerModel, extra: Partial<Parameters<typeof createRunWorkerTool>[0]> = {}) {
  const store = new MemoryBlackboardStore({ entries: workedEntries(), now: () => NOW });
  const runWorker = createRunWorkerTool({ store, skills: workedSkills(), model, sharedContext: WORKED_SHARED_CONTEXT, ...extra });
  return { store, runWorker };
}

async function snapshot(store: BlackboardStore) {
  return { entries: await store.query(['**']), revision: await store.headRevision() };
}

test('run_worker: the worker sees exactly its contract, not what the agent read, and writes its output tags', async () => {
  const model = new RecordingModel(['他低声说：“叫我老周。”']);
  const { store, runWorker } = setup(model);
  const readBlackboard = createReadBlackboardTool({ store });
  const read = await readBlackboard.execute({ patterns: ['核心.*'] }, context());
  assert.match(read.content, /男人口袋里有一把刀。/);

  const outcome = await runWorker.execute({ skill: 'narrator', task: WORKED_NARRATOR_TASK }, context());
  assert.equal(outcome.isError, undefined);
  assert.equal(outcome.content, 'narrator wrote 运行.叙述 (revision 21).');
  assert.equal(model.requests.length, 1);
  assert.deepEqual(model.requests[0]?.messages, WORKED_NARRATOR_MESSAGES);
  assert.deepEqual(model.requests[0]?.generation, {});
  assert.deepEqual((await store.query(['运行.叙述'])).at(-1), {
    tag: '运行.叙述',
    content: '他低声说：“叫我老周。”',
    author: { kind: 'worker', name: 'narrator' },
    role: 'final',
    revision: 21,
    createdAt: NOW.toISOString(),
  });
});

test('run_worker: several output tags come as JSON and land in one commit with final and process roles', async () => {
  const model = new RecordingModel(['```json\n{"可见信息": "男人摘下了帽子。", "运行.事件流": "22:08 男人报出名字。"}\n```']);
  const { store, runWorker } = setup(model);
  const outcome = await runWorker.execute({ skill: 'world-simulator' }, context());
  assert.equal(outcome.content, 'world-simulator wrote 运行.事件流 (revision 21), 可见信息 (revision 22).');
  const written = (await store.query(['运行.事件流', '可见信息'])).slice(-2).map((entry) => [entry.tag, entry.content, entry.role]);
  assert.deepEqual(written, [
    ['运行.事件流', '22:08 男人报出名字。', 'process'],
    ['可见信息', '男人摘下了帽子。', 'final'],
  ]);
  assert.equal(model.requests[0]?.messages.length, 2);
});

test('run_worker: a failed model call, unusable output or a moved blackboard leave the blackboard unchanged', async () => {
  const failing = setup(new RecordingModel([new Error('upstream 503')]));
  const before = await snapshot(failing.store);
  const failed = await failing.runWorker.execute({ skill: 'narrator' }, context());
  assert.equal(failed.isError, true);
  assert.match(failed.content, /model call for narrator failed; the blackboard is unchanged: upstream 503/);
  assert.deepEqual(await snapshot(failing.store), before);

  const garbled = setup(new RecordingModel(['{"可见信息": "x", "设计.worker集": "y"}']));
  const garbledOutcome = await garbled.runWorker.execute({ skill: 'world-simulator' }, context());
  assert.equal(garbledOutcome.isError, true);
  assert.match(garbledOutcome.content, /"设计\.worker集" is not an output tag of world-simulator/);
  assert.deepEqual(await snapshot(garbled.store), before);

  let store: BlackboardStore | undefined;
  const racing = setup(
    new RecordingModel(['他点了点头。'], async () => {
      await store?.commit({ author: { kind: 'user' }, writes: [{ tag: '用户.最新输入', content: '等等！' }] });
    }),
  );
  store = racing.store;
  const raced = await racing.runWorker.execute({ skill: 'narrator' }, context());
  assert.equal(raced.isError, true);
  assert.match(raced.content, /changed while narrator ran \(revision 20 → 21\); nothing written/);
  assert.deepEqual((await store.query(['运行.叙述'])).map((entry) => entry.revision), [20]);
});

test('run_worker: the manifest decides which skills run and with which profile; agents cannot pass tags', async () => {
  const manifest = parseInstanceManifest({ runSkills: ['narrator'], contextProfile: { narrator: { variant: 'short_emotion_flow', historyPolicy: 'last_1_turns' } } });
  const model = new RecordingModel(['好。']);
  const { runWorker } = setup(model, { manifest });
  assert.deepEqual((runWorker.parameters['properties'] as { skill: { enum: string[] } }).skill.enum, ['narrator']);

  const notRun = await runWorker.execute({ skill: 'director' }, context());
  assert.equal(notRun.isError, true);
  const tags = await runWorker.execute({ skill: 'narrator', inputTags: ['核心.*'] }, context());
  assert.equal(tags.isError, true);
  assert.match(tags.content, /takes no "inputTags"/);
  const unknownVariant = await runWorker.execute({ skill: 'narrator', variant: 'verbose' }, context());
  assert.equal(unknownVariant.isError, true);
  assert.match(unknownVariant.content, /"verbose" is not a variant of this skill/);

  const outcome = await runWorker.execute({ skill: 'narrator' }, context());
  assert.equal(outcome.isError, undefined);
  const history = model.requests[0]!.messages.filter((message) => message.role === 'assistant' || message.role === 'user').slice(0, -1);
  assert.deepEqual(history, [{ role: 'assistant', content: '他说要一盒安眠药，声音很低。' }]);
});

test('run_worker: a role_pov worker speaks for the role it is given', async () => {
  const model = new RecordingModel(['林晚决定报警。']);
  const { runWorker } = setup(model);
  await runWorker.execute({ skill: 'role-decide', pov: '林晚' }, context());
  const prompt = model.requests[0]!.messages.map((message) => message.content).join('\n');
  assert.match(prompt, /她觉得这个男人很眼熟。/);
  assert.doesNotMatch(prompt, /渡轮船长|我其实很害怕/);
});

test('read_blackboard lists entries with their revision, tag, role and author, and rejects bad patterns', async () => {
  const store = new MemoryBlackboardStore({ entries: workedEntries() });
  const tool = createReadBlackboardTool({ store, maxEntryChars: 4, maxEntries: 2 });
  const outcome = await tool.execute({ patterns: ['创作.已验收内容.*'] }, context());
  assert.equal(
    outcome.content,
    '(1 older entries not shown)\n\n' +
      '#4 创作.已验收内容.第一章 [final] by worker:writer at 2026-01-02T03:04:05.000Z\n雨夜，林… [6 more characters]\n\n' +
      '#5 创作.已验收内容.第二章 [final] by worker:writer at 2026-01-02T03:04:05.000Z\n陌生男人… [5 more characters]',
  );
  assert.equal((await tool.execute({ patterns: ['a..b'] }, context())).isError, true);
  assert.equal((await tool.execute({ patterns: [] }, context())).isError, true);
  assert.equal((await tool.execute({ patterns: ['不存在'] }, context())).content, 'no entries match 不存在');
});

test('run_worker: a play worker assembles in the order table on the blackboard; a malformed table is an error result', async () => {
  const model = new RecordingModel(['好。']);
  const { store, runWorker } = setup(model);
  await store.commit({
    author: { kind: 'runtime' },
    writes: [{ tag: '设计.上下文投影排序', content: JSON.stringify({ inserts: [{ order: 0, tag: '对话.历史', policy: 'last_1_turns' }, { order: 1, tag: '用户.最新输入' }] }) }],
  });
  await runWorker.execute({ skill: 'narrator' }, context());
  const messages = model.requests[0]!.messages;
  // Shared context and body before the history; the segments the table leaves out are appended after it; the summary last.
  assert.deepEqual(messages.map((message) => message.role), ['system', 'system', 'assistant', 'user', 'system']);
  assert.match(messages[1]!.content, /^## 角色设定\n/);
  assert.deepEqual(messages.slice(2, 4), [
    { role: 'assistant', content: '他说要一盒安眠药，声音很低。' },
    { role: 'user', content: '我把药递给他，问他叫什么名字。' },
  ]);
  assert.equal(messages.some((message) => message.content.includes('inserts')), false);

  await store.commit({ author: { kind: 'runtime' }, writes: [{ tag: '设计.上下文投影排序', content: '{"inserts": 3}' }] });
  const before = await snapshot(store);
  const outcome = await runWorker.execute({ skill: 'narrator' }, context());
  assert.equal(outcome.isError, true);
  assert.match(outcome.content, /assembling the context of narrator failed: context_order inserts/);
  assert.deepEqual(await snapshot(store), before);
  assert.equal(model.requests.length, 1);
});
