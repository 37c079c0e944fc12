import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BlackboardIndex } from './blackboard-index.js';
import type { BlackboardEntry } from './blackboard-store.js';

const TAGS = ['对话.历史', '运行.事件流', '世界.蓝图'];

/** `count` entries over three tags (the first two hold many), revisions with ties, listed in order or shuffled. */
function board(count: number, shuffled: boolean): BlackboardEntry[] {
  const list: BlackboardEntry[] = [];
  for (let index = 0; index < count; index += 1) {
    list.push({ tag: TAGS[index % 7 === 0 ? 2 : index % 2]!, content: `entry ${index}`, author: { kind: 'user' }, revision: Math.floor(index / 3) + 1, createdAt: '2026-01-01T00:00:00.000Z' });
  }
  return shuffled ? list.map((entry, index) => ({ entry, key: (index * 2_654_435_761) % 4_294_967_296 })).sort((left, right) => left.key - right.key).map(({ entry }) => entry) : list;
}

/** The reference: a tag's entries newest first, a later listed entry first among equal revisions. */
function newestFirst(list: readonly BlackboardEntry[], tag: string): BlackboardEntry[] {
  return list
    .map((entry, position) => ({ entry, position }))
    .filter(({ entry }) => entry.tag === tag)
    .sort((left, right) => right.entry.revision - left.entry.revision || right.position - left.position)
    .map(({ entry }) => entry);
}

test('fromEntries: every rank of every tag, its count and first write, as a sort of the whole list gives, in order or shuffled', () => {
  for (const shuffled of [false, true]) {
    const list = board(600, shuffled);
    const index = BlackboardIndex.fromEntries(list);
    assert.deepEqual([...index.tags()].sort(), [...TAGS].sort());
    for (const tag of TAGS) {
      const expected = newestFirst(list, tag);
      assert.equal(index.count(tag), expected.length);
      // The newest few first (kept while grouping), then deeper ranks (the tag's whole list found then).
      for (let rank = 0; rank <= expected.length; rank += 1) assert.equal(index.newest(tag, rank), expected[rank], `${tag} rank ${rank}, shuffled ${shuffled}`);
    }
    const across = index.newestAcross(TAGS.slice(0, 2), 40);
    const reference = list
      .map((entry, position) => ({ entry, position }))
      .filter(({ entry }) => entry.tag !== TAGS[2])
      .sort((left, right) => right.entry.revision - left.entry.revision || right.position - left.position)
      .slice(0, 40)
      .map(({ entry }) => entry);
    assert.deepEqual(across, reference);
    // First write: the oldest revision, then the first listed.
    const first = (tag: string) => list.reduce((best, entry, position) => (entry.tag === tag && (best < 0 || entry.revision < list[best]!.revision) ? position : best), -1);
    assert.equal(Math.sign(index.compareFirstWrite(TAGS[0]!, TAGS[1]!)), Math.sign(list[first(TAGS[0]!)]!.revision - list[first(TAGS[1]!)]!.revision || first(TAGS[0]!) - first(TAGS[1]!)));
  }
});
