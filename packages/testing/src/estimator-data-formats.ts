// Code and data files of the kinds tool outputs carry, generated for the
// estimator's stress corpus (see `stressCorpus`): encoding tables of every
// script, LaTeX, SQL, CSV, TSV, logs, stack traces of five runtimes and hex dumps.
// Deterministic: every choice comes from the given random source.

/** The texts of one conversation of the stress corpus. */
export interface GeneratedTexts {
  readonly conversation: string;
  readonly texts: readonly string[];
}

/** Blocks of consecutive code points an encoding table lists: one run of every common script, and rare parts of CJK and Hangul. */
const TABLE_BLOCKS: ReadonlyArray<readonly [string, number, number]> = [
  ['hangul', 0xac00, 0xac00 + 11_171],
  ['han', 0x4e00, 0x9fff],
  ['han extension A', 0x3400, 0x4dbf],
  ['kana', 0x3041, 0x30ff],
  ['cyrillic', 0x0400, 0x04ff],
  ['greek', 0x0370, 0x03ff],
  ['arabic', 0x0600, 0x06ff],
  ['hebrew', 0x0591, 0x05f4],
  ['devanagari', 0x0900, 0x097f],
  ['thai', 0x0e01, 0x0e5b],
  ['latin extended', 0x0100, 0x024f],
  ['symbols', 0x2100, 0x22ff],
];

const hex4 = (code: number) => code.toString(16).toUpperCase().padStart(4, '0');

/**
 * Character tables as programs and data files hold them: JSON from code
 * point to character (the densest: a character per nine bytes), JavaScript
 * escapes beside characters, a TSV of code point, character and UTF-8
 * bytes, and the characters alone. Slices of 48 code points, spread over
 * each block.
 */
function encodingTables(): GeneratedTexts[] {
  const generated: GeneratedTexts[] = [];
  for (const [name, first, last] of TABLE_BLOCKS) {
    const slices: number[][] = [];
    const step = Math.max(48, Math.floor((last - first) / 6));
    for (let start = first; start + 48 <= last + 1 && slices.length < 6; start += step) {
      slices.push(Array.from({ length: 48 }, (_, index) => start + index).filter((code) => /\P{Cn}/u.test(String.fromCharCode(code))));
    }
    const texts = slices.flatMap((codes) => [
      JSON.stringify(Object.fromEntries(codes.map((code) => [hex4(code), String.fromCharCode(code)]))),
      codes.map((code) => `  "\\u${hex4(code)}": "${String.fromCharCode(code)}",`).join('\n'),
      codes.map((code) => `U+${hex4(code)}\t${String.fromCharCode(code)}\t${[...Buffer.from(String.fromCharCode(code))].map((byte) => byte.toString(16).padStart(2, '0')).join(' ')}`).join('\n'),
      String.fromCharCode(...codes),
    ]);
    generated.push({ conversation: `encoding table ${name}`, texts });
  }
  return generated;
}

/** Picks from a list with the random source. */
type Pick = <T>(values: readonly T[]) => T;

/** Equations, environments and a table, as a paper's source has them. */
function latex(pick: Pick, random: () => number, words: readonly string[]): GeneratedTexts {
  const symbols = ['\\alpha', '\\beta', '\\gamma', '\\lambda', '\\mu', '\\sigma', '\\theta', '\\omega', 'x', 'y', 'z', 'n', 'k'];
  const term = () => pick([
    () => `\\frac{${pick(symbols)}_{${pick(['i', 'j', 'k'])}}}{${pick(symbols)}^{${1 + Math.floor(random() * 4)}}}`,
    () => `\\sum_{i=1}^{${pick(['n', 'N', 'm'])}} ${pick(symbols)}_i`,
    () => `\\int_{0}^{\\infty} e^{-${pick(symbols)} t}\\,dt`,
    () => `\\sqrt{${pick(symbols)}^2 + ${pick(symbols)}^2}`,
    () => `\\mathbb{E}\\left[${pick(symbols)} \\mid ${pick(symbols)}\\right]`,
    () => `${(random() * 10).toFixed(2)}\\times 10^{-${Math.floor(random() * 9)}}`,
  ])();
  const equation = () => `\\begin{equation}\\label{eq:${pick(words)}}\n  ${term()} = ${term()} + ${term()}\n\\end{equation}`;
  const sentence = () => `The ${pick(words)} of $${term()}$ is bounded by $${term()}$ (see~\\cite{${pick(words)}${2000 + Math.floor(random() * 25)}}).`;
  const table = (rows: number) => [
    '\\begin{tabular}{lrrr}\n\\hline',
    'Method & Precision & Recall & $F_1$ \\\\ \\hline',
    ...Array.from({ length: rows }, () => `${pick(words)} & ${random().toFixed(3)} & ${random().toFixed(3)} & ${random().toFixed(3)} \\\\`),
    '\\hline\n\\end{tabular}',
  ].join('\n');
  const section = () => `\\section{${pick(words)} ${pick(words)}}\n${Array.from({ length: 3 }, sentence).join(' ')}\n${equation()}\n\\begin{align*}\n  ${term()} &= ${term()} \\\\\n  &\\le ${term()}\n\\end{align*}`;
  return { conversation: 'latex', texts: [section(), section() + '\n' + section(), table(8), table(30), Array.from({ length: 12 }, equation).join('\n')] };
}

/** A schema, INSERTs of many rows, queries, and a COPY block as pg_dump writes it. */
function sql(pick: Pick, random: () => number, words: readonly string[]): GeneratedTexts {
  const date = () => `2024-${String(1 + Math.floor(random() * 12)).padStart(2, '0')}-${String(1 + Math.floor(random() * 28)).padStart(2, '0')}`;
  const schema = `CREATE TABLE IF NOT EXISTS orders (\n  id BIGSERIAL PRIMARY KEY,\n  customer_id INTEGER NOT NULL REFERENCES customers(id) ON DELETE CASCADE,\n  status VARCHAR(16) NOT NULL DEFAULT 'pending',\n  total_cents INTEGER NOT NULL CHECK (total_cents >= 0),\n  created_at TIMESTAMPTZ NOT NULL DEFAULT now()\n);\nCREATE INDEX orders_customer_idx ON orders (customer_id, created_at DESC);`;
  const inserts = (rows: number) => `INSERT INTO orders (id, customer_id, status, total_cents, created_at) VALUES\n${Array.from({ length: rows }, (_, index) => `  (${1000 + index}, ${Math.floor(random() * 90_000)}, '${pick(['pending', 'paid', 'shipped', 'refunded'])}', ${Math.floor(random() * 1_000_000)}, '${date()} ${String(Math.floor(random() * 24)).padStart(2, '0')}:${String(Math.floor(random() * 60)).padStart(2, '0')}:00+00')`).join(',\n')};`;
  const query = () => `SELECT c.${pick(words)}, COUNT(*) AS n, SUM(o.total_cents) / 100.0 AS total\nFROM orders o JOIN customers c ON c.id = o.customer_id\nWHERE o.created_at >= '${date()}' AND o.status IN ('paid', 'shipped') AND c.${pick(words)} IS NOT NULL\nGROUP BY c.${pick(words)}\nHAVING COUNT(*) > ${Math.floor(random() * 20)}\nORDER BY total DESC\nLIMIT ${10 + Math.floor(random() * 90)};`;
  const copy = (rows: number) => `COPY public.customers (id, name, email, city, created) FROM stdin;\n${Array.from({ length: rows }, (_, index) => [index + 1, `${pick(words)} ${pick(words)}`, `${pick(words)}.${pick(words)}@example.org`, random() > 0.8 ? '\\N' : pick(words), date()].join('\t')).join('\n')}\n\\.`;
  return { conversation: 'sql', texts: [schema, inserts(10), inserts(60), Array.from({ length: 5 }, query).join('\n\n'), copy(40)] };
}

/** Comma-separated values with quoted fields, numbers and empty cells. */
function csv(pick: Pick, random: () => number, words: readonly string[]): GeneratedTexts {
  const rows = (count: number) => ['id,name,score,ratio,active,comment', ...Array.from({ length: count }, (_, index) => [index, `"${pick(words)}, ${pick(words)}"`, Math.floor(random() * 10_000), random().toFixed(6), random() > 0.5, random() > 0.7 ? '' : pick(words)].join(','))].join('\n');
  return { conversation: 'csv', texts: [rows(12), rows(80)] };
}

/** Tab-separated exports of ids, names with their ids, decimals and booleans, with and without a header. */
function tsv(pick: Pick, random: () => number, words: readonly string[]): GeneratedTexts {
  const rows = (count: number, step: number) => Array.from({ length: count }, (_, index) => [index, `${pick(words)}_${index}`, index * step, random() > 0.5].join('\t')).join('\n');
  const header = (count: number) => `id\tname\tvalue\tactive\n${rows(count, 0.25)}`;
  return { conversation: 'tsv', texts: [rows(40, 3.5), rows(200, 1.5), header(60), rows(30, 1_000.125)] };
}

/** Logs of servers and tools: syslog, access logs, JSON lines, Python logging, Kubernetes events. */
function logs(pick: Pick, random: () => number, words: readonly string[]): GeneratedTexts {
  const time = (index: number) => `2024-05-${String(1 + (index % 28)).padStart(2, '0')}T${String(index % 24).padStart(2, '0')}:${String((index * 7) % 60).padStart(2, '0')}:${String((index * 13) % 60).padStart(2, '0')}.${String(Math.floor(random() * 1000)).padStart(3, '0')}Z`;
  const ip = () => Array.from({ length: 4 }, () => Math.floor(random() * 256)).join('.');
  const level = () => pick(['INFO', 'WARN', 'ERROR', 'DEBUG']);
  const lines = (count: number, line: (index: number) => string) => Array.from({ length: count }, (_, index) => line(index)).join('\n');
  const syslog = (index: number) => `May ${String(1 + (index % 28)).padStart(2, ' ')} ${String(index % 24).padStart(2, '0')}:${String((index * 7) % 60).padStart(2, '0')}:01 host-${index % 4} ${pick(['sshd', 'kernel', 'systemd', 'cron'])}[${1000 + Math.floor(random() * 30_000)}]: ${pick(words)} ${pick(words)} for ${pick(words)} from ${ip()} port ${1024 + Math.floor(random() * 60_000)}`;
  const access = (index: number) => `${ip()} - - [${String(1 + (index % 28)).padStart(2, '0')}/May/2024:${String(index % 24).padStart(2, '0')}:14:09 +0000] "${pick(['GET', 'POST', 'PUT'])} /api/v2/${pick(words)}/${Math.floor(random() * 99_999)}?page=${index % 9} HTTP/1.1" ${pick([200, 200, 201, 304, 404, 500])} ${Math.floor(random() * 50_000)} "-" "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36"`;
  const json = (index: number) => JSON.stringify({ ts: time(index), level: level().toLowerCase(), msg: `${pick(words)} ${pick(words)}`, request_id: Math.floor(random() * 2 ** 32).toString(16).padStart(8, '0'), duration_ms: Math.round(random() * 5000) / 10, user: index % 17 });
  const python = (index: number) => `${time(index).replace('T', ' ').slice(0, 23)} ${level().padEnd(5)} [${pick(words)}.${pick(words)}:${1 + Math.floor(random() * 400)}] ${pick(words)} ${pick(words)}: retrying in ${(random() * 10).toFixed(1)}s (attempt ${1 + (index % 5)}/5)`;
  const events = (index: number) => `${(index % 59) + 1}m\t${pick(['Normal', 'Warning'])}\t${pick(['Scheduled', 'Pulled', 'BackOff', 'Killing', 'Unhealthy'])}\tpod/${pick(words)}-${Math.floor(random() * 2 ** 24).toString(36)}-${Math.floor(random() * 2 ** 20).toString(36)}\t${pick(words)} ${pick(words)} probe failed: HTTP probe failed with statuscode: 503`;
  return { conversation: 'logs', texts: [lines(30, syslog), lines(30, access), lines(40, json), lines(40, python), lines(30, events)] };
}

/** Stack traces of Node, Python, Java, Go and Rust, deep and with long paths. */
function stackTraces(pick: Pick, random: () => number, words: readonly string[]): GeneratedTexts {
  const line = () => 1 + Math.floor(random() * 900);
  const frames = (count: number, frame: () => string) => Array.from({ length: count }, frame).join('\n');
  const node = () => `TypeError: Cannot read properties of undefined (reading '${pick(words)}')\n${frames(14, () => `    at ${pick(words)}${pick(['', '.<anonymous>', 'Handler'])} (/home/user/project/node_modules/${pick(words)}/dist/${pick(words)}.js:${line()}:${line()})`)}\n    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)`;
  const python = () => `Traceback (most recent call last):\n${frames(10, () => `  File "/usr/lib/python3.11/site-packages/${pick(words)}/${pick(words)}.py", line ${line()}, in ${pick(words)}_${pick(words)}\n    result = self._${pick(words)}(${pick(words)}, timeout=${line()})`)}\nKeyError: '${pick(words)}'`;
  const java = () => `Exception in thread "main" java.lang.IllegalStateException: ${pick(words)} ${pick(words)}\n${frames(16, () => `\tat com.example.${pick(words)}.${pick(words)[0]!.toUpperCase()}${pick(words)}Service.${pick(words)}(${pick(words)[0]!.toUpperCase()}Service.java:${line()})`)}\n\t... ${line()} more\nCaused by: java.lang.NullPointerException`;
  const go = () => `panic: runtime error: index out of range [${line()}] with length ${line()}\n\ngoroutine ${line()} [running]:\n${frames(8, () => `main.(*${pick(words)}).${pick(words)}(0xc000${Math.floor(random() * 2 ** 24).toString(16).padStart(6, '0')}, 0x${line().toString(16)})\n\t/go/src/app/${pick(words)}.go:${line()} +0x${line().toString(16)}`)}\nexit status 2`;
  const rust = () => `thread 'main' panicked at src/${pick(words)}.rs:${line()}:${line()}:\ncalled \`Option::unwrap()\` on a \`None\` value\nstack backtrace:\n${frames(10, () => `  ${line()}: ${pick(words)}::${pick(words)}::${pick(words)}\n             at ./src/${pick(words)}.rs:${line()}:${line()}`)}`;
  return { conversation: 'stack traces', texts: [node(), python(), java(), go(), rust()] };
}

/** Hex dumps as `xxd` prints them: offset, sixteen bytes in groups of two, the printable characters. */
function hexDumps(random: () => number, words: readonly string[]): GeneratedTexts {
  const dump = (bytes: Buffer) => Array.from({ length: Math.ceil(bytes.length / 16) }, (_, row) => {
    const slice = bytes.subarray(row * 16, row * 16 + 16);
    const groups = (slice.toString('hex').match(/.{1,4}/g) ?? []).join(' ');
    return `${(row * 16).toString(16).padStart(8, '0')}: ${groups.padEnd(39)}  ${[...slice].map((byte) => (byte >= 32 && byte < 127 ? String.fromCharCode(byte) : '.')).join('')}`;
  }).join('\n');
  const text = Buffer.from(words.slice(0, 120).join(' '));
  const binary = Buffer.from(Array.from({ length: 640 }, () => Math.floor(random() * 256)));
  return { conversation: 'hex dumps', texts: [dump(text), dump(binary)] };
}

/** Every kind above, as conversations of the stress corpus. `words` are small-letter words to fill names and messages. */
export function dataFormatTexts(random: () => number, words: readonly string[]): GeneratedTexts[] {
  const pick: Pick = (values) => values[Math.floor(random() * values.length)]!;
  return [...encodingTables(), latex(pick, random, words), sql(pick, random, words), csv(pick, random, words), tsv(pick, random, words), logs(pick, random, words), stackTraces(pick, random, words), hexDumps(random, words)];
}
