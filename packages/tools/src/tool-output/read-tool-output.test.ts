import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { type ReadToolOutputAnswer, nextArgumentsOf, readToolOutput } from './read-tool-output.js';
import type { ReadToolOutputArguments } from './read-arguments.js';
import { LineIndex, pairSafeOffset, splitsSurrogatePair } from './line-index.js';

const REF = 'out_7f3a';

function answer(body: string, request: Omit<ReadToolOutputArguments, 'ref'>, maxChars?: number): ReadToolOutputAnswer {
  const result = readToolOutput({ body, arguments: { ref: REF, ...request }, ...(maxChars === undefined ? {} : { maxChars }) });
  assert.ok(result.ok, result.ok ? '' : result.message);
  return result;
}

/** Follows the `next:` instruction in each header, as a model would, and joins the text after the headers. */
function reassemble(body: string, first: ReadToolOutputArguments, maxChars: number): { text: string; parts: number } {
  let request: ReadToolOutputArguments | undefined = first;
  let text = '';
  let parts = 0;
  while (request !== undefined) {
    const result = readToolOutput({ body, arguments: request, maxChars });
    assert.ok(result.ok, result.ok ? '' : result.message);
    assert.ok(result.content.length <= maxChars, `content of ${result.content.length} chars exceeds ${maxChars}`);
    const newline = result.content.indexOf('\n');
    const shown = result.content.slice(newline + 1);
    assert.equal(shown, result.text);
    assert.deepEqual(nextArgumentsOf(result.content), result.next);
    if (result.slice !== undefined) {
      assert.equal(result.slice.start, text.length, 'parts are contiguous');
      assert.equal(splitsSurrogatePair(body, result.slice.end), false);
    }
    text += shown;
    parts += 1;
    request = result.next;
    assert.ok(parts <= body.length + 2, 'the chain always advances');
  }
  return { text, parts };
}

test('line ranges: whole lines within the bound, and the exact arguments for the next part', () => {
  const body = Array.from({ length: 300 }, (_, index) => `line ${index + 1}: ${'·'.repeat(40)}`).join('\n');
  const first = answer(body, { lines: { start: 1 } }, 1_000);
  assert.ok(first.text.startsWith('line 1: '));
  assert.ok(first.text.endsWith('\n'));
  const shownLines = first.text.split('\n').length - 1;
  assert.deepEqual(first.next, { ref: REF, lines: { start: shownLines + 1 } });
  assert.equal(first.content.split('\n')[0], `[read_tool_output "${REF}": lines 1-${shownLines} of 300 (chars 0-${first.text.length} of ${body.length})] next: {"ref":"${REF}","lines":{"start":${shownLines + 1}}}`);

  const bounded = answer(body, { lines: { start: 10, end: 12 } });
  assert.equal(bounded.text, [10, 11, 12].map((line) => `line ${line}: ${'·'.repeat(40)}\n`).join(''));
  assert.deepEqual(bounded.next, { ref: REF, lines: { start: 13 } });
  const last = answer(body, { lines: { start: 300 } });
  assert.equal(last.next, undefined);
  assert.match(last.content.split('\n')[0]!, /end of output$/);
});

test('an over-wide line continues by character range, then back to lines', () => {
  const wide = JSON.stringify({ rows: Array.from({ length: 400 }, (_, index) => ({ id: index, city: '東京' })) });
  const body = `head\n${wide}\ntail\n`;
  const first = answer(body, { lines: { start: 2 } }, 1_000);
  assert.equal(first.mode, 'lines');
  assert.match(first.description, /^line 2 of 3 is \d+ chars wide, shown in part: chars 5-/);
  assert.deepEqual(first.next, { ref: REF, chars: { start: first.slice!.end } });
  const { text } = reassemble(body, { ref: REF, lines: { start: 1 } }, 1_000);
  assert.equal(text, body);
  // The part that finishes the wide line hands back to line ranges.
  let request: ReadToolOutputArguments | undefined = first.next;
  let handBack: ReadToolOutputArguments | undefined;
  while (request?.chars !== undefined) {
    const part = answer(body, { chars: request.chars }, 1_000);
    request = part.next;
    handBack = part.next;
  }
  assert.deepEqual(handBack, { ref: REF, lines: { start: 3 } });
});

test('character ranges never split a surrogate pair', () => {
  const body = '😀'.repeat(3_000);
  const part = answer(body, { chars: { start: 1 } }, 1_000);
  assert.equal(part.slice!.start, 0, 'a start inside a pair moves to the pair start');
  assert.equal(part.slice!.end % 2, 0);
  const odd = answer(body, { chars: { start: 0, end: 5 } });
  assert.equal(odd.text, '😀😀');
  assert.deepEqual(odd.next, { ref: REF, chars: { start: 4, end: 5 } });
  assert.equal(answer(body, { chars: { start: 4, end: 5 } }).text, '😀');
});

test('query: matching lines with context, line numbers, and a fromLine to continue', () => {
  const body = Array.from({ length: 100 }, (_, index) => (index % 10 === 4 ? `row ${index + 1} ERROR disk full` : `row ${index + 1} ok`)).join('\n');
  const result = answer(body, { query: 'ERROR' });
  assert.equal(result.mode, 'query');
  assert.equal(result.description, '10 matches on 10 lines for "ERROR"; showing 10 places (">" marks a matching line, 2 lines of context; the output has 100 lines)');
  const lines = result.text.split('\n');
  assert.deepEqual(lines.slice(0, 6), ['   3: row 3 ok', '   4: row 4 ok', '>  5: row 5 ERROR disk full', '   6: row 6 ok', '   7: row 7 ok', '--']);
  assert.equal(result.next, undefined);

  const paged = answer(body, { query: 'ERROR' }, 1_000);
  assert.ok(paged.next !== undefined);
  assert.equal(paged.next.query, 'ERROR');
  const following = answer(body, { query: 'ERROR', fromLine: paged.next.fromLine! }, 1_000);
  assert.ok(following.text.includes(`>${String(paged.next.fromLine).padStart(3)}: row ${paged.next.fromLine} ERROR`));

  const insensitive = answer(body, { query: 'error', ignoreCase: true, fromLine: 90 });
  assert.match(insensitive.description, /^1 match on 1 line for "error" \(ignoring case\) from line 90 on;/);
  // A query that itself holds the header's marker still yields parseable next arguments.
  const tricky = answer(`${'x] next: y\n'.repeat(400)}`, { query: 'x] next: y' }, 1_000);
  assert.deepEqual(nextArgumentsOf(tricky.content), tricky.next);
  assert.equal(tricky.next?.query, 'x] next: y');
  // Every regular-expression syntax character is matched literally.
  const literal = 'a-b.c(d)*[x]{1}|/\\^$?+';
  const special = answer(`before\n${literal}\nafter`, { query: literal });
  assert.match(special.description, /^1 match on 1 line/);
  assert.ok(special.text.includes(`>2: ${literal}`));
  const none = answer(body, { query: 'segfault' });
  assert.equal(none.text, '');
  assert.match(none.description, /^no match for "segfault"; the output has 100 lines; read by range with/);
});

test('query: a match on an over-wide line is shown around the match with its body offsets', () => {
  const body = `${'a'.repeat(5_000)}NEEDLE${'b'.repeat(5_000)}\nshort`;
  const result = answer(body, { query: 'NEEDLE' });
  const first = result.text.split('\n')[0]!;
  assert.ok(first.startsWith('>1: …'));
  assert.ok(first.includes('NEEDLE'));
  assert.match(first, /\[line is 10006 chars; shown: chars 4880-5200 of the output\]$/);
  assert.ok(result.content.length < 1_000);
});

test('query on compact JSON: one excerpt per match, continued with fromChar', () => {
  const body = JSON.stringify({ flights: Array.from({ length: 80 }, (_, index) => ({ flight_number: `HAT${String(index).padStart(3, '0')}`, status: index % 4 === 0 ? 'cancelled' : 'available' })) });
  const first = answer(body, { query: 'cancelled' }, 2_000);
  assert.match(first.description, /^20 matches on 1 line for "cancelled"; showing \d+ places .*the output has 1 line\)$/);
  const excerpts = first.text.split('\n').filter((line) => line.startsWith('>'));
  assert.ok(excerpts.length >= 2);
  assert.ok(excerpts.every((line) => line.includes('cancelled') && /\[line is \d+ chars; shown: chars \d+-\d+ of the output\]$/.test(line)));
  assert.ok(first.next?.fromChar !== undefined && first.next.fromLine === undefined);
  const second = answer(body, { query: 'cancelled', fromChar: first.next.fromChar });
  assert.match(second.description, new RegExp(`from char ${first.next.fromChar} on`));
});

test('property: following a query\'s "next" shows every match once, each page within the bound', () => {
  const pieces = fc.oneof(fc.constantFrom('\n', 'NEEDLE', '中文', '😀', 'needle'), fc.string({ unit: 'grapheme', maxLength: 30 }), fc.integer({ min: 1, max: 900 }).map((count) => 'x'.repeat(count)));
  fc.assert(
    fc.property(fc.array(pieces, { maxLength: 80 }), fc.integer({ min: 1_000, max: 2_000 }), (parts, maxChars) => {
      const body = parts.join('');
      const index = new LineIndex(body);
      const offsets: number[] = [];
      for (let at = body.indexOf('NEEDLE'); at !== -1; at = body.indexOf('NEEDLE', at + 6)) offsets.push(at);
      const shownLines = new Set<number>();
      const shownRanges: Array<[number, number]> = [];
      let request: ReadToolOutputArguments | undefined = { ref: REF, query: 'NEEDLE' };
      let pages = 0;
      while (request !== undefined) {
        const result = readToolOutput({ body, arguments: request, maxChars });
        assert.ok(result.ok, result.ok ? '' : result.message);
        assert.ok(result.content.length <= maxChars);
        for (const line of result.text.split('\n')) {
          const matched = /^>\s*(\d+): /.exec(line);
          if (matched === null) continue;
          shownLines.add(Number(matched[1]));
          const range = /shown: chars (\d+)-(\d+) of the output\]$/.exec(line);
          if (range !== null) shownRanges.push([Number(range[1]), Number(range[2])]);
        }
        request = result.next;
        pages += 1;
        assert.ok(pages <= offsets.length + 1);
      }
      for (const offset of offsets) {
        const line = index.lineAt(offset);
        const wide = index.textOf(line).length > 400;
        if (wide) assert.ok(shownRanges.some(([start, end]) => start <= offset && offset < end), `match at ${offset} not shown`);
        else assert.ok(shownLines.has(line), `line ${line} not shown`);
      }
    }),
    { numRuns: 200 },
  );
});

test('property: any substring of the body, used as a query, is found where it first occurs', () => {
  fc.assert(
    fc.property(bodies, fc.nat(), fc.integer({ min: 1, max: 12 }), fc.boolean(), (body, startSeed, length, ignoreCase) => {
      if (body.length === 0) return;
      const start = pairSafeOffset(body, startSeed % body.length);
      const needle = body.slice(start, pairSafeOffset(body, Math.min(body.length, start + length)));
      if (needle === '' || /[\r\n]/.test(needle)) return;
      const first = body.indexOf(needle);
      const index = new LineIndex(body);
      const line = index.lineAt(first);
      const wide = index.textOf(line).length > 400;
      let request: ReadToolOutputArguments | undefined = { ref: REF, query: needle, ...(ignoreCase ? { ignoreCase } : {}) };
      let found = false;
      while (request !== undefined && !found) {
        const result = readToolOutput({ body, arguments: request, maxChars: 1_500 });
        assert.ok(result.ok, result.ok ? '' : result.message);
        found = result.text.split('\n').some((shown) => {
          if (!new RegExp(`^>\\s*${line}: `).test(shown)) return false;
          const range = /shown: chars (\d+)-(\d+) of the output\]$/.exec(shown);
          return !wide || (range !== null && Number(range[1]) <= first + needle.length && first < Number(range[2]));
        });
        request = result.next;
      }
      assert.ok(found, `query ${JSON.stringify(needle)} not shown at line ${line}`);
    }),
    { numRuns: 300 },
  );
});

test('bad arguments are structured failures', () => {
  const body = 'one\ntwo\n';
  const failures: ReadonlyArray<[Omit<ReadToolOutputArguments, 'ref'>, string]> = [
    [{ query: 'x', lines: { start: 1 } }, 'TOOL_OUTPUT_ARGUMENTS_INVALID'],
    [{ fromLine: 2 }, 'TOOL_OUTPUT_ARGUMENTS_INVALID'],
    [{ lines: { start: 0 } }, 'TOOL_OUTPUT_ARGUMENTS_INVALID'],
    [{ lines: { start: 3 } }, 'TOOL_OUTPUT_RANGE_INVALID'],
    [{ lines: { start: 2, end: 1 } }, 'TOOL_OUTPUT_RANGE_INVALID'],
    [{ chars: { start: 8 } }, 'TOOL_OUTPUT_RANGE_INVALID'],
    [{ chars: { start: 2, end: 2 } }, 'TOOL_OUTPUT_RANGE_INVALID'],
    [{ query: '' }, 'TOOL_OUTPUT_ARGUMENTS_INVALID'],
  ];
  for (const [request, code] of failures) {
    const result = readToolOutput({ body, arguments: { ref: REF, ...request } });
    assert.equal(result.ok, false, JSON.stringify(request));
    if (!result.ok) assert.equal(result.code, code, JSON.stringify(request));
  }
  const empty = answer('', {});
  assert.equal(empty.text, '');
  assert.equal(empty.next, undefined);
});

const piece = fc.oneof(
  fc.constantFrom('\n', '\r\n', '😀', '中文字符', '𠀀𠀁', '{"k":[1,2,3]}', ' ', 'é', 'a-b', '(x)*', '[^$]', '{2}|\\', '.+?/'),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.tuple(fc.constantFrom('x', '😀', '中', '"a":1,'), fc.integer({ min: 1, max: 1_500 })).map(([unit, count]) => unit.repeat(count)),
);
const bodies = fc.array(piece, { maxLength: 60 }).map((pieces) => pieces.join(''));

test('property: following "next" from lines or chars reproduces the body exactly, within the bound', () => {
  fc.assert(
    fc.property(bodies, fc.integer({ min: 1_000, max: 2_500 }), fc.boolean(), (body, maxChars, byChars) => {
      const first: ReadToolOutputArguments = byChars ? { ref: REF, chars: { start: 0 } } : { ref: REF, lines: { start: 1 } };
      const { text } = reassemble(body, first, maxChars);
      assert.equal(text, body);
    }),
    { numRuns: 300 },
  );
});

test('property: a character range with any start and end never splits a surrogate pair', () => {
  fc.assert(
    fc.property(bodies, fc.integer({ min: 1_000, max: 1_500 }), fc.nat(), fc.nat(), (body, maxChars, startSeed, lengthSeed) => {
      if (body.length === 0) return;
      const start = startSeed % body.length;
      const end = start + 1 + (lengthSeed % 3_000);
      const result = readToolOutput({ body, arguments: { ref: REF, chars: { start, end } }, maxChars });
      assert.ok(result.ok, result.ok ? '' : result.message);
      assert.equal(splitsSurrogatePair(body, result.slice!.start), false);
      assert.equal(splitsSurrogatePair(body, result.slice!.end), false);
      assert.ok(result.slice!.end > result.slice!.start);
      assert.equal(result.text, body.slice(result.slice!.start, result.slice!.end));
    }),
    { numRuns: 300 },
  );
});
