import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ManifestError } from './errors/manifest-error.js';
import { parseInstanceManifest } from './instance-manifest.js';
import { workedSkills } from './testing/worked-example.js';

const skills = workedSkills();

test('reads the documented manifest shape', () => {
  const manifest = parseInstanceManifest(
    JSON.stringify({
      runSkills: ['world-simulator', 'narrator'],
      contextProfile: { narrator: { variant: 'short_emotion_flow', historyPolicy: 'last_15_turns' }, 'world-simulator': {} },
    }),
    { skills },
  );
  assert.deepEqual(manifest, {
    runSkills: ['world-simulator', 'narrator'],
    contextProfile: { narrator: { variant: 'short_emotion_flow', historyPolicy: 'last_15_turns' }, 'world-simulator': {} },
  });
});

test('rejects a manifest that lists tags, and each other mistake, naming the field', () => {
  const rejects = (value: unknown, field: string, pattern: RegExp) =>
    assert.throws(() => parseInstanceManifest(value, { skills }), (error) => ManifestError.isInstance(error) && error.field === field && pattern.test(error.message));
  rejects({ runSkills: ['narrator'], contextProfile: { narrator: { inputTags: ['核心.*'] } } }, 'contextProfile.narrator.inputTags', /never tag lists/);
  rejects({ runSkills: ['narrator'], contextProfile: { narrator: { variant: 'x', contextSegments: [] } } }, 'contextProfile.narrator.contextSegments', /never tag lists/);
  rejects({ runSkills: ['narrator'], tags: ['a'] }, 'tags', /never tag lists/);
  rejects({ runSkills: ['narrator'], contextProfile: { narrator: { variant: 'verbose' } } }, 'contextProfile.narrator.variant', /not a variant of narrator/);
  rejects({ runSkills: ['narrator'], contextProfile: { narrator: { historyPolicy: 'all' } } }, 'contextProfile.narrator.historyPolicy', /not a policy/);
  rejects({ runSkills: ['narrator'], contextProfile: { narrator: { temperature: 1 } } }, 'contextProfile.narrator.temperature', /not a profile field/);
  rejects({ runSkills: ['narrator'], contextProfile: { director: {} } }, 'contextProfile.director', /not in runSkills/);
  rejects({ runSkills: ['poet'] }, 'runSkills[0]', /not a skill/);
  rejects({ runSkills: 'narrator' }, 'runSkills', /list of skill names/);
  rejects('{', '(document)', /not JSON/);
});
