import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { BlackboardStore } from '../blackboard-store.js';
import { BlackboardConflictError } from '../errors/blackboard-conflict-error.js';
import { TagError } from '../errors/tag-error.js';

export interface BlackboardStoreContractOptions {
  /** Shown in each test name. */
  readonly name: string;
  /** A fresh, empty store whose clock reads `now`. */
  readonly create: (options: { readonly now: () => Date }) => Promise<BlackboardStore>;
}

const FIXED_NOW = new Date('2026-01-02T03:04:05.000Z');

/**
 * The behaviour every `BlackboardStore` shares. Each store's test file calls
 * this once, so memory and SQLite are held to the same contract.
 */
export function runBlackboardStoreContract(options: BlackboardStoreContractOptions): void {
  const fresh = () => options.create({ now: () => FIXED_NOW });

  test(`${options.name}: commits append entries with monotonic revisions`, async () => {
    const store = await fresh();
    try {
      assert.equal(await store.headRevision(), 0);
      const first = await store.commit({ author: { kind: 'user' }, writes: [{ tag: '用户.最新输入', content: '你好' }] });
      assert.equal(first.revision, 1);
      const second = await store.commit({
        author: { kind: 'worker', name: 'narrator' },
        writes: [
          { tag: '运行.事件流', content: '第一行', role: 'process' },
          { tag: '运行.事件流', content: '第二行' },
        ],
      });
      assert.equal(second.revision, 3);
      assert.deepEqual(await store.query(['运行.事件流']), [
        { tag: '运行.事件流', content: '第一行', author: { kind: 'worker', name: 'narrator' }, role: 'process', revision: 2, createdAt: FIXED_NOW.toISOString() },
        { tag: '运行.事件流', content: '第二行', author: { kind: 'worker', name: 'narrator' }, revision: 3, createdAt: FIXED_NOW.toISOString() },
      ]);
      assert.deepEqual(second.entries.map((entry) => entry.revision), [2, 3]);
      assert.equal(await store.headRevision(), 3);
    } finally {
      await store.close();
    }
  });

  test(`${options.name}: queries by exact tag, prefix.* and **, oldest first, each entry once`, async () => {
    const store = await fresh();
    try {
      await store.commit({
        author: { kind: 'runtime' },
        writes: [
          { tag: '运行.事件流', content: 'a' },
          { tag: '运行', content: 'b' },
          { tag: '运行时.其他', content: 'c' },
          { tag: '运行.事件流.旧', content: 'd' },
          { tag: '设计.开场白#1', content: 'e' },
          { tag: '设计.开场白', content: 'f' },
          // The bare prefix of `设计.开场白#*`: a tag of its own, which the pattern does not match.
          { tag: '设计.开场白#', content: 'g' },
        ],
      });
      const contents = async (patterns: string[]) => (await store.query(patterns)).map((entry) => entry.content).join('');
      assert.equal(await contents(['运行.事件流']), 'a');
      assert.equal(await contents(['运行.*']), 'ad');
      assert.equal(await contents(['设计.开场白#*']), 'e');
      assert.equal(await contents(['设计.开场白#']), 'g');
      assert.equal(await contents(['**']), 'abcdefg');
      assert.equal(await contents(['运行.*', '运行.事件流', '运行']), 'abd');
      assert.equal(await contents([]), '');
      await assert.rejects(store.query(['运行.**x']), (error) => TagError.isInstance(error));
    } finally {
      await store.close();
    }
  });

  test(`${options.name}: replace removes the tag's earlier entries in the same atomic commit`, async () => {
    const store = await fresh();
    try {
      await store.commit({ author: { kind: 'user' }, writes: [{ tag: '草稿', content: '一' }, { tag: '草稿', content: '二' }, { tag: '其他', content: '三' }] });
      await store.commit({ author: { kind: 'runtime' }, writes: [{ tag: '草稿', content: '〔已归档〕一', role: 'archived', mode: 'replace' }] });
      assert.deepEqual((await store.query(['**'])).map((entry) => [entry.tag, entry.content, entry.revision]), [
        ['其他', '三', 3],
        ['草稿', '〔已归档〕一', 4],
      ]);
    } finally {
      await store.close();
    }
  });

  test(`${options.name}: remove drops entries by revision in the same atomic commit`, async () => {
    const store = await fresh();
    try {
      await store.commit({
        author: { kind: 'worker', name: 'narrator' },
        writes: [{ tag: '运行.草稿', content: '过程一' }, { tag: '运行.草稿', content: '定稿', role: 'final' }, { tag: '运行.草稿', content: '过程二' }],
      });
      await store.commit({ author: { kind: 'runtime' }, remove: [1, 3, 99], writes: [{ tag: '运行.草稿', content: '〔已归档〕过程二', role: 'archived' }] });
      assert.deepEqual((await store.query(['运行.草稿'])).map((entry) => [entry.content, entry.revision, entry.author.kind]), [
        ['定稿', 2, 'worker'],
        ['〔已归档〕过程二', 4, 'runtime'],
      ]);
      await assert.rejects(store.commit({ author: { kind: 'runtime' }, remove: [0], writes: [] }), (error) => TagError.isInstance(error));
    } finally {
      await store.close();
    }
  });

  test(`${options.name}: a failed commit leaves the blackboard as it was`, async () => {
    const store = await fresh();
    try {
      await store.commit({ author: { kind: 'user' }, writes: [{ tag: '世界.蓝图', content: '雾港' }] });
      const before = await store.query(['**']);
      await assert.rejects(
        store.commit({
          author: { kind: 'worker', name: 'narrator' },
          writes: [
            { tag: '世界.蓝图', content: '被替换', mode: 'replace' },
            { tag: '运行..坏标签', content: 'x' },
          ],
        }),
        (error) => TagError.isInstance(error) && error.culprit === '运行..坏标签',
      );
      await assert.rejects(
        store.commit({ author: { kind: 'user' }, writes: [{ tag: '世界.蓝图', content: '冲突' }], expectedRevision: 0 }),
        (error) => BlackboardConflictError.isInstance(error) && error.actualRevision === 1,
      );
      await assert.rejects(
        store.commit({ author: { kind: 'user' }, writes: [{ tag: '世界.蓝图', content: '新' }, { tag: '世界.蓝图', content: 'bad \ud800' }] }),
        (error) => TagError.isInstance(error) && error.culprit === '世界.蓝图',
      );
      assert.deepEqual(await store.query(['**']), before);
      assert.equal(await store.headRevision(), 1);
      const next = await store.commit({ author: { kind: 'user' }, writes: [{ tag: '世界.蓝图', content: '新' }], expectedRevision: 1 });
      assert.equal(next.revision, 2);
    } finally {
      await store.close();
    }
  });

  test(`${options.name}: an aborted signal stops a query before it runs`, async () => {
    const store = await fresh();
    try {
      const controller = new AbortController();
      controller.abort();
      await assert.rejects(store.query(['**'], { signal: controller.signal }), { name: 'AbortError' });
      await assert.rejects(store.commit({ author: { kind: 'user' }, writes: [{ tag: 'a', content: 'b' }] }, { signal: controller.signal }), { name: 'AbortError' });
      assert.equal(await store.headRevision(), 0);
    } finally {
      await store.close();
    }
  });
}
