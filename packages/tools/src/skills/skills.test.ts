import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { ConfigurationError } from '@strata/context';
import { SkillFormatError } from '../errors/skill-format-error.js';
import { ToolRegistry } from '../registry/tool-registry.js';
import { toolErrorCodeOf } from '../tool-error.js';
import { loadSkills } from './load-skills.js';
import { createReadSkillTool, skillReferenceFromContent } from './read-skill-tool.js';
import { skillCatalogContributorFactory, skillCatalogSection } from './skill-catalog-section.js';

const PDF_BODY = '# Working with PDFs\n\nRun `pdftotext -layout` first. SECRET-PDF-STEP.';
const PDF_SKILL = `---\nname: pdf-tools\ndescription: Extract text and tables from PDF files.\n---\n${PDF_BODY}\n`;
const CSV_SKILL = '---\nname: csv\ndescription: Clean CSV files.\nmetadata:\n  owner: data-team\n---\nUse the csv module. SECRET-CSV-STEP.\n';

async function withSkills(run: (directory: string) => Promise<void>): Promise<void> {
  const directory = await mkdtemp(join(tmpdir(), 'strata-skills-'));
  try {
    await mkdir(join(directory, 'pdf', 'scripts'), { recursive: true });
    await writeFile(join(directory, 'pdf', 'SKILL.md'), PDF_SKILL);
    await writeFile(join(directory, 'pdf', 'reference.md'), 'Page boxes: MediaBox, CropBox.');
    await writeFile(join(directory, 'pdf', 'scripts', 'extract.py'), 'print("hi")\n');
    await mkdir(join(directory, 'csv'));
    await writeFile(join(directory, 'csv', 'SKILL.md'), CSV_SKILL);
    await mkdir(join(directory, 'notes'));
    await writeFile(join(directory, 'notes', 'README.md'), 'not a skill');
    await writeFile(join(directory, 'loose-file.md'), 'ignored');
    await run(directory);
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

function sha256(text: string): string {
  return `sha256:${createHash('sha256').update(Buffer.from(text, 'utf8')).digest('hex')}`;
}

test('the catalog lists skills by name with their files; the system section never holds a body', async () => {
  await withSkills(async (directory) => {
    const catalog = await loadSkills(directory);
    assert.deepEqual(catalog.skills.map((skill) => [skill.name, skill.files]), [
      ['csv', []],
      ['pdf-tools', ['reference.md', 'scripts/extract.py']],
    ]);
    assert.equal(catalog.skills[1]?.revision, sha256(PDF_SKILL));
    assert.deepEqual(catalog.skills[0]?.metadata, { owner: 'data-team' });

    const section = skillCatalogSection(catalog);
    assert.ok(section !== undefined);
    assert.equal(section.slot, 'skills');
    assert.equal(
      section.content,
      'Skills hold instructions for specialised tasks. Only their names and descriptions are listed here. Before using a skill, load its instructions with read_skill {"name": "<skill name>"}.\n\n- csv: Clean CSV files.\n- pdf-tools: Extract text and tables from PDF files.',
    );
    assert.ok(!section.content.includes('SECRET'));
    assert.equal(skillCatalogSection(catalog, { select: ['csv'] })?.content.includes('pdf-tools'), false);
    assert.throws(() => skillCatalogSection(catalog, { select: ['nope'] }), (error: unknown) => ConfigurationError.isInstance(error) && error.message.includes('nope'));

    const factory = skillCatalogContributorFactory({ catalog, scopes: ['main'] });
    const contributor = factory.create({ contextId: 'c', scope: 'main' });
    assert.ok(!Array.isArray(contributor));
    const contribution = await (contributor as { contribute: (request: never) => unknown }).contribute({} as never);
    assert.deepEqual(contribution, { sections: [section] });
    assert.deepEqual(factory.create({ contextId: 'c', scope: 'reviewer' }), []);
  });
});

test('read_skill returns the body with its revision; a changed SKILL.md yields a new revision', async () => {
  await withSkills(async (directory) => {
    const catalog = await loadSkills(directory);
    const registry = new ToolRegistry();
    registry.register(createReadSkillTool({ catalog }));
    const read = (input: Record<string, string>) => registry.execute({ id: JSON.stringify(input), name: 'read_skill', input }, { contextId: 'ctx' });

    const first = await read({ name: 'pdf-tools' });
    assert.equal(
      first.content,
      `<skill name="pdf-tools" revision="${sha256(PDF_SKILL)}">\n${PDF_BODY}\n</skill>\nFiles of this skill (read one with read_skill {"name":"pdf-tools","file":"<path>"}): reference.md, scripts/extract.py`,
    );
    assert.deepEqual(first.data, { skillReference: { name: 'pdf-tools', revision: sha256(PDF_SKILL) } });
    assert.deepEqual(skillReferenceFromContent(first.content), { name: 'pdf-tools', revision: sha256(PDF_SKILL) });

    const changed = PDF_SKILL.replace('first', 'always');
    await writeFile(join(directory, 'pdf', 'SKILL.md'), changed);
    const second = await read({ name: 'pdf-tools' });
    assert.deepEqual(second.data, { skillReference: { name: 'pdf-tools', revision: sha256(changed) } });
    assert.notEqual(sha256(changed), sha256(PDF_SKILL));
    assert.match(second.content, /Run `pdftotext -layout` always/);

    const extra = await read({ name: 'pdf-tools', file: 'scripts/extract.py' });
    assert.equal(extra.content, `<skill-file skill="pdf-tools" file="scripts/extract.py" revision="${sha256('print("hi")\n')}">\nprint("hi")\n\n</skill-file>`);
    assert.equal(skillReferenceFromContent(extra.content), undefined);

    assert.equal(toolErrorCodeOf(await read({ name: 'pdf-tools', file: '../csv/SKILL.md' })), 'SKILL_FILE_INVALID');
    assert.equal(toolErrorCodeOf(await read({ name: 'docx' })), 'SKILL_UNKNOWN');
    await writeFile(join(directory, 'csv', 'SKILL.md'), 'no frontmatter any more');
    const broken = await read({ name: 'csv' });
    assert.equal(toolErrorCodeOf(broken), 'SKILL_UNREADABLE');
    assert.match(broken.content, /SKILL\.md:1: /);
  });
});

test('loading fails clearly on a malformed SKILL.md, a duplicate name or a missing directory', async () => {
  await withSkills(async (directory) => {
    await mkdir(join(directory, 'bad'));
    await writeFile(join(directory, 'bad', 'SKILL.md'), '---\ndescription: no name here\n---\nbody\n');
    await assert.rejects(loadSkills(directory), (error: unknown) => SkillFormatError.isInstance(error) && error.code === 'SKILL_NAME_MISSING' && error.file === join(directory, 'bad', 'SKILL.md'));
    await writeFile(join(directory, 'bad', 'SKILL.md'), CSV_SKILL);
    await assert.rejects(loadSkills(directory), (error: unknown) => SkillFormatError.isInstance(error) && error.code === 'SKILL_NAME_DUPLICATE' && error.message.includes(join(directory, 'csv', 'SKILL.md')));
  });
  await assert.rejects(loadSkills('/nonexistent/strata-skills'), (error: unknown) => SkillFormatError.isInstance(error) && error.code === 'SKILL_DIRECTORY_UNREADABLE');
});
