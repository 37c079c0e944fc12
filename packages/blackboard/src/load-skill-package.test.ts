import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SkillContractError } from './errors/skill-contract-error.js';
import { WorkerSkillFormatError } from './errors/worker-skill-format-error.js';
import { loadSkillPackage } from './load-skill-package.js';
import { WORKED_SHARED_CONTEXT, WORKED_SKILL_FILES } from './testing/worked-example.js';

async function writePackage(files: Record<string, string>): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), 'strata-skills-'));
  for (const [path, text] of Object.entries(files)) {
    await mkdir(join(directory, path, '..'), { recursive: true });
    await writeFile(join(directory, path), text);
  }
  return directory;
}

test('loads shared-context.md and workers/<name>/SKILL.md, sorted by name', async () => {
  const directory = await writePackage({
    'shared-context.md': `${WORKED_SHARED_CONTEXT}\n`,
    'workers/narrator/SKILL.md': WORKED_SKILL_FILES['narrator']!,
    'workers/director/SKILL.md': WORKED_SKILL_FILES['director']!,
    'workers/notes/README.md': 'not a skill',
  });
  try {
    const loaded = await loadSkillPackage({ directory });
    assert.equal(loaded.sharedContext, WORKED_SHARED_CONTEXT);
    assert.deepEqual([...loaded.skills.keys()], ['director', 'narrator']);
    assert.equal(loaded.skills.get('narrator')?.file, join(directory, 'workers/narrator/SKILL.md'));
  } finally {
    await rm(directory, { recursive: true });
  }
});

test('a malformed or unsound skill fails the load, naming the file and line or the skill and field', async () => {
  const malformed = await writePackage({ 'workers/bad/SKILL.md': '---\nname: bad\ninputTags: [a\n---\n' });
  const unsound = await writePackage({ 'workers/narrator/SKILL.md': WORKED_SKILL_FILES['narrator']!.replace('tags: ["世界.蓝图"]', 'tags: ["设计.worker集"]') });
  try {
    await assert.rejects(loadSkillPackage({ directory: malformed }), (error) => WorkerSkillFormatError.isInstance(error) && error.file === join(malformed, 'workers/bad/SKILL.md') && error.line !== undefined);
    await assert.rejects(
      loadSkillPackage({ directory: unsound }),
      (error) => SkillContractError.isInstance(error) && error.skill === 'narrator' && error.violations[0]?.field === 'contextSegments[1].tags[0]',
    );
  } finally {
    await rm(malformed, { recursive: true });
    await rm(unsound, { recursive: true });
  }
});
