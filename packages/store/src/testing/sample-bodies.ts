/**
 * Bodies every store must return byte for byte. Built here by hand (no
 * data files) so the contract runs anywhere.
 */
export function sampleBodies(): ReadonlyArray<{ readonly name: string; readonly body: string }> {
  const controls = Array.from({ length: 32 }, (_, code) => String.fromCharCode(code)).join('') + '\u007f\u0080\u009f';
  const cjk = '中文测试：工具输出 — 日本語のテキスト、한국어 텍스트。全角ＡＢＣ１２３\n𠀀𠀁𪚥 (astral CJK) 😀👩‍👩‍👧 é (e + combining)\n';
  const largeLines: string[] = [];
  let largeChars = 0;
  for (let index = 0; largeChars < 6_000_000; index += 1) {
    const line = `${String(index).padStart(6, '0')}\t{"row":${index},"text":"行 ${index} 中文 \\u0000 ${'x'.repeat(index % 97)}"}\r`;
    largeLines.push(line);
    largeChars += line.length + 1;
  }
  return [
    { name: 'empty', body: '' },
    { name: 'one line without newline', body: 'ok' },
    { name: 'only newlines', body: '\n\n\n' },
    { name: 'control characters and NUL', body: `${controls}\n${controls}\r\n\u0000\u0000end\u0000` },
    { name: 'binary-looking (every byte value as a code unit)', body: Array.from({ length: 256 }, (_, code) => String.fromCharCode(code)).join('').repeat(64) },
    { name: 'BOM, replacement character and noncharacters', body: '\ufeffstart\ufffd\ufffe\uffff\u2028\u2029end' },
    { name: 'CJK and astral characters', body: cjk.repeat(500) },
    { name: 'lone high surrogate', body: 'before \ud800 after' },
    { name: 'lone low surrogate at the end', body: 'tail \udc00' },
    { name: 'reversed pair and mixed surrogates', body: '\udc00\ud800 😀 \ud83d' },
    { name: 'compact JSON single wide line', body: JSON.stringify(Array.from({ length: 20_000 }, (_, index) => ({ id: index, name: `名前${index}`, ok: index % 2 === 0 }))) },
    { name: 'large (about 6 MB, CRLF-ish lines)', body: largeLines.join('\n') },
  ];
}
