import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { TagError } from './errors/tag-error.js';
import {
  assertValidTag,
  isValidTag,
  isValidTagPattern,
  matchesTagPattern,
  parseTagPattern,
  tagPatternWithin,
} from './tag-pattern.js';

test('valid tags are hierarchical Unicode names', () => {
  for (const tag of ['运行.事件流', '角色卡.确认稿', '设计.worker集', '设计.开场白#1', 'a']) assert.equal(isValidTag(tag), true, tag);
  for (const tag of ['', '.a', 'a.', 'a..b', 'a.*', ' a', 'a. b', 'a\nb']) assert.equal(isValidTag(tag), false, JSON.stringify(tag));
  assert.throws(() => assertValidTag('运行..事件流'), (error) => TagError.isInstance(error) && error.culprit === '运行..事件流');
});

test('patterns: exact, prefix.*, segment prefix #*, and **', () => {
  assert.equal(matchesTagPattern('运行.事件流', '运行.事件流'), true);
  assert.equal(matchesTagPattern('运行.事件流', '运行.事件流.旧'), false);
  assert.equal(matchesTagPattern('运行.*', '运行.事件流'), true);
  assert.equal(matchesTagPattern('运行.*', '运行.事件流.旧'), true);
  assert.equal(matchesTagPattern('运行.*', '运行'), false);
  assert.equal(matchesTagPattern('运行.*', '运行时.事件'), false);
  assert.equal(matchesTagPattern('设计.开场白#*', '设计.开场白#2'), true);
  assert.equal(matchesTagPattern('设计.开场白#*', '设计.开场白'), false);
  // The bare prefix is a tag of its own, not below it: `x#*` never matches `x#`.
  assert.equal(matchesTagPattern('设计.开场白#*', '设计.开场白#'), false);
  assert.equal(matchesTagPattern('**', '任何.标签'), true);
  for (const bad of ['*', '.*', 'a*b', 'a..*', '***']) assert.equal(isValidTagPattern(bad), false, bad);
  assert.deepEqual(parseTagPattern('运行.*'), { kind: 'prefix', source: '运行.*', prefix: '运行.' });
});

test('pattern containment', () => {
  assert.equal(tagPatternWithin('运行.事件流', '运行.*'), true);
  assert.equal(tagPatternWithin('运行.事件.*', '运行.*'), true);
  assert.equal(tagPatternWithin('运行.*', '运行.事件流'), false);
  assert.equal(tagPatternWithin('运行.*', '**'), true);
  assert.equal(tagPatternWithin('**', '运行.*'), false);
  assert.equal(tagPatternWithin('世界.蓝图', '世界.蓝图'), true);
  assert.equal(tagPatternWithin('世界.蓝图', '世界.地图'), false);
});

test('containment agrees with matching (property)', () => {
  const level = fc.constantFrom('运行', '事件流', '角色', 'a', 'b', '#1');
  const tag = fc.array(level, { minLength: 1, maxLength: 4 }).map((levels) => levels.join('.'));
  const pattern = fc.oneof(tag, tag.map((value) => `${value}.*`), fc.constant('**'));
  fc.assert(
    fc.property(pattern, pattern, tag, (inner, outer, candidate) => {
      if (tagPatternWithin(inner, outer) && matchesTagPattern(inner, candidate)) {
        assert.equal(matchesTagPattern(outer, candidate), true);
      }
    }),
  );
});
