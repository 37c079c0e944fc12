import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bindPlayProjection } from './bind-play-projection.js';
import { formatContextOrder, parseContextOrder } from './context-order.js';
import { ContextOrderError } from './errors/context-order-error.js';

test('play binding keeps the play projection only and reports each exclusion', () => {
  const order = parseContextOrder(`
inserts:
  - { order: 0, tag: 角色卡.确认稿 }
  - { order: 1, tag: 设计.本局创作方案 }
  - { order: 2, tag: 设计.美学纲领与交互范式 }
  - { order: 3, tag: 设计.正文组成 }
  - { order: 4, tag: 设计.0层正文组成 }
  - { order: 5, tag: 设计.开场白#1 }
  - { order: 6, tag: 设计.worker集 }
  - { order: 7, tag: 设计.上下文投影排序 }
  - { order: 8, tag: 对话.历史, policy: last_15_turns }
  - { order: 9, tag: 用户.最新输入 }
`);
  const { order: bound, diagnostics } = bindPlayProjection({
    order,
    feeds: { '设计.本局创作方案': 'design_only', '设计.美学纲领与交互范式': 'design_only', '设计.正文组成': 'program', '设计.0层正文组成': 'program', '角色卡.*': 'play' },
  });
  assert.deepEqual(bound.inserts.map((insert) => insert.tag), ['角色卡.确认稿', '对话.历史', '用户.最新输入']);
  assert.deepEqual(diagnostics.map((diagnostic) => diagnostic.subject), [
    '设计.本局创作方案',
    '设计.美学纲领与交互范式',
    '设计.正文组成',
    '设计.0层正文组成',
    '设计.开场白#1',
    '设计.worker集',
    '设计.上下文投影排序',
  ]);
  assert.equal(
    formatContextOrder(bound),
    '{\n  "inserts": [\n    {\n      "order": 0,\n      "tag": "角色卡.确认稿"\n    },\n    {\n      "order": 8,\n      "tag": "对话.历史",\n      "policy": "last_15_turns"\n    },\n    {\n      "order": 9,\n      "tag": "用户.最新输入"\n    }\n  ]\n}',
  );
  assert.deepEqual(parseContextOrder(formatContextOrder(bound)), bound);
});

test('a malformed order table names the field', () => {
  const field = (text: string) => {
    try {
      parseContextOrder(text);
    } catch (error) {
      if (ContextOrderError.isInstance(error)) return error.field;
      throw error;
    }
    return 'accepted';
  };
  assert.equal(field('{"inserts": {}}'), 'inserts');
  assert.equal(field('[{"order": "first", "tag": "a"}]'), 'inserts[0].order');
  assert.equal(field('[{"order": 1, "tag": "a..b"}]'), 'inserts[0].tag');
  assert.equal(field('[{"order": 1, "tag": "a", "policy": "all"}]'), 'inserts[0].policy');
  assert.equal(field('[{"order": 2, "tag": "b"}, {"order": 1, "tag": "a"}]'), 'accepted');
  assert.deepEqual(parseContextOrder('[{"order": 2, "tag": "b"}, {"order": 1, "tag": "a"}, {"order": 1, "tag": "c"}]').inserts.map((insert) => insert.tag), ['a', 'c', 'b']);
});
