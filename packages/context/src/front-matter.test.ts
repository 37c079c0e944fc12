import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isMap, isScalar } from 'yaml';
import { FrontMatterError, type FrontMatterErrorCode } from './errors/front-matter-error.js';
import { readFrontMatter } from './front-matter.js';

const FILE = 'skills/x/SKILL.md';

function fieldsOf(text: string): unknown {
  return readFrontMatter({ text, file: FILE }).document.toJS();
}

function failure(text: string): FrontMatterError {
  try {
    readFrontMatter({ text, file: FILE });
  } catch (error) {
    if (FrontMatterError.isInstance(error)) return error;
    throw error;
  }
  assert.fail(`expected a FrontMatterError for ${JSON.stringify(text)}`);
}

test('splits the YAML block from the body and says where the body starts', () => {
  const read = readFrontMatter({ text: '---\nname: pdf\ndescription: reads PDFs\n---\n# PDF\n\nUse pdftotext.\n', file: FILE });
  assert.deepEqual(read.document.toJS(), { name: 'pdf', description: 'reads PDFs' });
  assert.equal(read.body, '# PDF\n\nUse pdftotext.\n');
  assert.equal(read.bodyLine, 5);
});

test('maps an offset into the block to its 1-based file line', () => {
  const read = readFrontMatter({ text: '---\nname: a\n\nmetadata:\n  version: 2\n---\n', file: FILE });
  const contents = read.document.contents;
  assert.ok(isMap(contents));
  const lines = contents.items.map((item) => (isScalar(item.key) && item.key.range !== undefined && item.key.range !== null ? read.lineOf(item.key.range[0]) : -1));
  assert.deepEqual(lines, [2, 4]);
});

test('a byte-order mark is dropped and CRLF line ends are accepted; the body keeps its line ends', () => {
  const read = readFrontMatter({ text: '\uFEFF---\r\nname: crlf\r\ndescription: >\r\n  two\r\n  lines\r\n---\r\nbody\r\n', file: FILE });
  assert.deepEqual(read.document.toJS(), { name: 'crlf', description: 'two lines\n' });
  assert.equal(read.body, 'body\r\n');
  assert.equal(read.bodyLine, 7);
});

test('fences may carry trailing spaces or tabs, nothing else', () => {
  assert.deepEqual(fieldsOf('--- \t\nname: a\n---  \nbody'), { name: 'a' });
  assert.deepEqual(fieldsOf('---\t\r\nname: a\r\n--- \r\nbody'), { name: 'a' });
  // A longer dash run, an indented fence or text after the dashes is not a fence.
  assert.equal(failure('----\nname: a\n---\n').code, 'FRONT_MATTER_MISSING');
  assert.equal(failure(' ---\nname: a\n---\n').code, 'FRONT_MATTER_MISSING');
  assert.equal(failure('--- yaml\nname: a\n---\n').code, 'FRONT_MATTER_MISSING');
  assert.equal(failure('---\nname: a\n ---\n----\n--- end\n').code, 'FRONT_MATTER_UNTERMINATED');
});

test('the first closing fence ends the block; later fences belong to the body', () => {
  const read = readFrontMatter({ text: '---\nname: a\n---\nintro\n---\nmore\n', file: FILE });
  assert.deepEqual(read.document.toJS(), { name: 'a' });
  assert.equal(read.body, 'intro\n---\nmore\n');
});

test('an empty block (or one of comments only) has null contents', () => {
  assert.equal(readFrontMatter({ text: '---\n---\nbody', file: FILE }).document.contents, null);
  assert.equal(readFrontMatter({ text: '---\n# nothing yet\n---\n', file: FILE }).document.contents, null);
});

test('each fault is one typed error with its code, the file and the file line', () => {
  const cases: ReadonlyArray<[text: string, code: FrontMatterErrorCode, line: number]> = [
    ['# Just markdown\n', 'FRONT_MATTER_MISSING', 1],
    ['', 'FRONT_MATTER_MISSING', 1],
    ['\uFEFFname: a\n---\n', 'FRONT_MATTER_MISSING', 1],
    // The line where a closing fence was expected: the end of the file.
    ['---\nname: x\ndescription: y\n', 'FRONT_MATTER_UNTERMINATED', 4],
    ['---\nname: x', 'FRONT_MATTER_UNTERMINATED', 2],
    ['---\nname: ok\ndescription: d\nbroken: [unclosed\n---\n', 'FRONT_MATTER_INVALID_YAML', 4],
    ['---\r\nname: ok\r\n\r\nbroken: [unclosed\r\n---\r\n', 'FRONT_MATTER_INVALID_YAML', 4],
    ['---\n- a list\n---\n', 'FRONT_MATTER_NOT_A_MAPPING', 2],
    ['---\njust text\n---\n', 'FRONT_MATTER_NOT_A_MAPPING', 2],
  ];
  for (const [text, code, line] of cases) {
    const error = failure(text);
    assert.equal(error.code, code, text);
    assert.equal(error.line, line, text);
    assert.equal(error.file, FILE);
    assert.equal(error.message, `${FILE}:${line}: ${error.reason}`);
    assert.equal(error.kind, 'input');
  }
  const yaml = failure('---\nkey: [a\n---\n');
  assert.ok(yaml.parserMessage !== undefined && yaml.parserMessage.length > 0 && !yaml.parserMessage.includes('\n'));
  assert.ok(yaml.cause instanceof Error);
  assert.equal(failure('---\n- a\n---\n').parserMessage, undefined);
});
