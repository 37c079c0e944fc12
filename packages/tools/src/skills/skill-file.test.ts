import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SkillFormatError } from '../errors/skill-format-error.js';
import { parseSkillFile } from './skill-file.js';

test('parses frontmatter fields and keeps the body verbatim', () => {
  const text = '---\nname: pdf-tools\ndescription: >\n  Extract text\n  from PDFs.\nlicense: MIT\nmetadata:\n  version: "2"\n---\n# PDF\n\nUse pdftotext.\n';
  const skill = parseSkillFile(text, '/skills/pdf/SKILL.md');
  assert.equal(skill.name, 'pdf-tools');
  assert.equal(skill.description, 'Extract text from PDFs.');
  assert.deepEqual(skill.metadata, { version: '2' });
  assert.equal(skill.frontmatter['license'], 'MIT');
  assert.equal(skill.body, '# PDF\n\nUse pdftotext.\n');
  assert.equal(skill.bodyLine, 10);
});

test('malformed files are errors naming the file and the line', () => {
  const cases: ReadonlyArray<[string, string, number]> = [
    ['# Just markdown\n', 'SKILL_FRONTMATTER_MISSING', 1],
    ['---\nname: x\ndescription: y\n', 'SKILL_FRONTMATTER_UNTERMINATED', 1],
    ['---\ndescription: does things\n---\nbody', 'SKILL_NAME_MISSING', 1],
    ['---\ndescription: does things\nname: ""\n---\nbody', 'SKILL_NAME_MISSING', 3],
    ['---\ndescription: d\nname: [a, b]\n---\n', 'SKILL_NAME_INVALID', 3],
    ['---\nname: has space\ndescription: d\n---\n', 'SKILL_NAME_INVALID', 2],
    ['---\nname: ok\n---\n', 'SKILL_DESCRIPTION_MISSING', 1],
    ['---\nname: ok\ndescription: d\nmetadata: [1]\n---\n', 'SKILL_METADATA_INVALID', 4],
    ['---\nname: ok\ndescription: d\nbroken: [unclosed\n---\n', 'SKILL_FRONTMATTER_INVALID', 4],
    ['---\n- a list\n---\n', 'SKILL_FRONTMATTER_INVALID', 2],
  ];
  for (const [text, code, line] of cases) {
    assert.throws(
      () => parseSkillFile(text, '/skills/x/SKILL.md'),
      (error: unknown) => {
        assert.ok(SkillFormatError.isInstance(error), text);
        assert.equal(error.code, code, text);
        assert.equal(error.line, line, text);
        assert.equal(error.file, '/skills/x/SKILL.md');
        assert.ok(error.message.startsWith(`/skills/x/SKILL.md:${line}: `), error.message);
        return true;
      },
    );
  }
});
