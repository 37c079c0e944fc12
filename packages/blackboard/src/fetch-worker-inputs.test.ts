import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compressAfterWorker } from './compress-after-worker.js';
import { fetchWorkerInputs } from './fetch-worker-inputs.js';
import { MemoryBlackboardStore } from './memory-blackboard-store.js';
import type { WorkerContract } from './resolve-worker-contract.js';

const contract: WorkerContract = { skill: 'narrator', inputTags: ['运行.*', '上下文.定稿摘要'], outputTags: ['运行.叙述'], finalTags: ['运行.叙述'], isolation: { mode: 'none' }, body: '' };

async function compressedBoard(): Promise<MemoryBlackboardStore> {
  const store = new MemoryBlackboardStore();
  await store.commit({
    author: { kind: 'worker', name: 'writer' },
    writes: [
      { tag: '运行.草稿', content: '第一稿', role: 'process' },
      { tag: '运行.草稿', content: '第二稿', role: 'process' },
      { tag: '运行.叙述', content: '定稿：门铃响了。', role: 'final' },
    ],
  });
  await compressAfterWorker({ store, processTags: ['运行.*'], summary: '第一幕：门铃响了。' });
  return store;
}

test('after compress-after-worker the next worker receives only the final products and the final summary', async () => {
  const store = await compressedBoard();
  const inputs = await fetchWorkerInputs({ store, contract, useContextOrder: false });
  assert.deepEqual(inputs.entries.map((entry) => [entry.tag, entry.content]), [
    ['运行.叙述', '定稿：门铃响了。'],
    ['上下文.定稿摘要', '第一幕：门铃响了。'],
  ]);
  assert.ok((await store.query(['运行.草稿'])).some((entry) => entry.role === 'archived'), 'the archive stays on the board for history and audit');
});

test('a contract that asks for an archive by name receives it', async () => {
  const store = await compressedBoard();
  const inputs = await fetchWorkerInputs({ store, contract, useContextOrder: false, archivedTags: ['运行.草稿'] });
  assert.ok(inputs.entries.some((entry) => entry.tag === '运行.草稿' && entry.role === 'archived' && entry.content.startsWith('〔已归档〕')));
});
