import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PresetFormatError } from './errors/preset-format-error.js';
import { parsePreset } from './parse-preset.js';
import { DEFAULT_PRESET } from './preset.js';

test('reads Strata\'s own preset shape and round-trips through JSON', () => {
  const preset = parsePreset(
    JSON.stringify({
      id: 'house',
      name: '家用',
      generation: { temperature: 0.7, maxOutputTokens: 800 },
      slots: [
        { kind: 'prompt', identifier: 'main', content: '你是一位严谨的作者。' },
        { kind: 'prompt', identifier: 'style', role: 'system', name: '文风', content: '文风：短句。' },
        { kind: 'bag', bag: 'before' },
        { kind: 'card', identifier: 'charDescription' },
        { kind: 'bag', bag: 'after' },
        { kind: 'bag', bag: 'history', identifier: 'chat' },
        { kind: 'bag', bag: 'turn' },
        { kind: 'bag', bag: 'postTurn' },
      ],
    }),
  );
  assert.deepEqual(preset, {
    id: 'house',
    name: '家用',
    generation: { temperature: 0.7, maxOutputTokens: 800 },
    slots: [
      { kind: 'prompt', identifier: 'main', role: 'system', content: '你是一位严谨的作者。' },
      { kind: 'prompt', identifier: 'style', name: '文风', role: 'system', content: '文风：短句。' },
      { kind: 'bag', identifier: 'before', bag: 'before' },
      { kind: 'card', identifier: 'charDescription' },
      { kind: 'bag', identifier: 'after', bag: 'after' },
      { kind: 'bag', identifier: 'chat', bag: 'history' },
      { kind: 'bag', identifier: 'turn', bag: 'turn' },
      { kind: 'bag', identifier: 'postTurn', bag: 'postTurn' },
    ],
  });
  assert.deepEqual(parsePreset(JSON.parse(JSON.stringify(DEFAULT_PRESET))), DEFAULT_PRESET);
});

test('a malformed preset names the field', () => {
  const field = (value: unknown) => {
    try {
      parsePreset(value);
    } catch (error) {
      if (PresetFormatError.isInstance(error)) return error.field;
      throw error;
    }
    return 'accepted';
  };
  assert.equal(field({ slots: [] }), 'id');
  assert.equal(field({ id: 'p' }), 'slots');
  assert.equal(field({ id: 'p', slots: [{ kind: 'bag', bag: 'middle' }] }), 'slots[0].bag');
  assert.equal(field({ id: 'p', slots: [{ kind: 'bag', bag: 'turn' }, { kind: 'bag', bag: 'turn' }] }), 'slots[1].bag');
  assert.equal(field({ id: 'p', slots: [{ kind: 'prompt', identifier: 'main', role: 'narrator', content: '' }] }), 'slots[0].role');
  assert.equal(field({ id: 'p', slots: [{ kind: 'card', identifier: 'authorsNote' }] }), 'slots[0].identifier');
  assert.equal(field({ id: 'p', slots: [{ kind: 'marker' }] }), 'slots[0].kind');
  assert.equal(field({ id: 'p', slots: [], generation: { temp: 1 } }), 'generation.temp');
  assert.equal(field({ id: 'p', slots: [], generation: { temperature: 'warm' } }), 'generation.temperature');
  assert.equal(field('{'), '(document)');
});
