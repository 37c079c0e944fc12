import { test } from 'node:test';
import assert from 'node:assert/strict';
import { archivePreview, compressAfterWorker } from './compress-after-worker.js';
import { MemoryBlackboardStore } from './memory-blackboard-store.js';

test('archives process entries into one marked preview, keeps finals, replaces the summary, in one commit', async () => {
  const store = new MemoryBlackboardStore({ now: () => new Date('2026-01-02T00:00:00.000Z') });
  const writer = { kind: 'worker', name: 'writer' } as const;
  await store.commit({
    author: writer,
    writes: [
      { tag: '运行.草稿', content: '第一稿：雨很大。', role: 'process' },
      { tag: '运行.草稿', content: '第二稿：雨很大，门铃响了。\n第二行', role: 'process' },
      { tag: '运行.叙述', content: '定稿：门铃在雨里响了。', role: 'final' },
      { tag: '上下文.定稿摘要', content: '旧摘要', role: 'final' },
      { tag: '用户.最新输入', content: '继续' },
    ],
  });
  const result = await compressAfterWorker({ store, processTags: ['运行.*'], summary: '第一幕：门铃在雨里响了。', previewChars: 6 });
  assert.equal(result?.revision, 7);
  assert.deepEqual((await store.query(['**'])).map((entry) => [entry.tag, entry.content, entry.role, entry.author.kind]), [
    ['运行.叙述', '定稿：门铃在雨里响了。', 'final', 'worker'],
    ['用户.最新输入', '继续', undefined, 'worker'],
    ['运行.草稿', '〔已归档〕第二稿：雨很…', 'archived', 'runtime'],
    ['上下文.定稿摘要', '第一幕：门铃在雨里响了。', 'final', 'runtime'],
  ]);
  // Nothing left to archive and no summary: no commit.
  assert.equal(await compressAfterWorker({ store, processTags: ['运行.*'] }), undefined);
  assert.equal(await store.headRevision(), 7);
});

test('a concurrent write makes compression fail whole', async () => {
  const store = new MemoryBlackboardStore();
  await store.commit({ author: { kind: 'worker', name: 'w' }, writes: [{ tag: '运行.草稿', content: '稿', role: 'process' }] });
  const racing = {
    ...store,
    headRevision: () => store.headRevision(),
    query: async (patterns: readonly string[]) => {
      const entries = await store.query(patterns);
      await store.commit({ author: { kind: 'user' }, writes: [{ tag: '用户.最新输入', content: '插话' }] });
      return entries;
    },
    summarizeTags: store.summarizeTags.bind(store),
    readNewest: store.readNewest.bind(store),
    commit: store.commit.bind(store),
    close: () => store.close(),
  };
  await assert.rejects(compressAfterWorker({ store: racing, processTags: ['运行.*'], summary: 's' }), { name: 'BlackboardConflictError' });
  assert.deepEqual((await store.query(['运行.草稿'])).map((entry) => entry.content), ['稿']);
});

test('archive previews are short, marked, one line, and never split a code point', () => {
  assert.equal(archivePreview('短'), '〔已归档〕短');
  assert.equal(archivePreview('一二三\n四五', 4), '〔已归档〕一二三 …');
  assert.equal(archivePreview('😀😀😀', 2), '〔已归档〕😀😀…');
});
