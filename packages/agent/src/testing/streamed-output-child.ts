// A child process for streamed-tool-output.test.ts: one agent run whose tool
// returns a large output, with memory sampled at injected points. Run as
// `node --expose-gc streamed-output-child.js <request JSON>`;
// prints one JSON line with the measurements and what the run kept.
import { resolveContextConfiguration, type ContextTraceV5, type ToolDefinition, type ToolOutputStore } from '@strata/context';
import { createModelClient, ScriptedLanguageModel } from '@strata/model';
import { createMemoryStores, createPostgresStores, openSqliteStores, type Stores } from '@strata/store';
import { createReadToolOutputTool, ToolRegistry } from '@strata/tools';
import { createAgentRun } from '../create-agent-run.js';

export interface StreamedOutputRequest {
  readonly backend: 'memory' | 'sqlite' | 'postgres';
  readonly shape: 'string' | 'iterable' | 'readable';
  /** Output size in UTF-16 code units (all ASCII: the same in UTF-8 bytes). */
  readonly chars: number;
  readonly sqlitePath?: string;
  readonly postgres?: { readonly url: string; readonly schema: string };
  /** Extra copies of the body a deliberately wasteful tool keeps alive: the test that the measurement can fail. */
  readonly wastefulCopies?: number;
}

const LINE_CHARS = 64;
const CHUNK_LINES = 1_024;

/** Line `index` (0-based) of the body: fixed width, so any line is known without the body. */
function bodyLine(index: number): string {
  const text = index === 123_456 ? `row ${index} NEEDLE-7f3a` : `row ${index} value ${(index * 7919) % 100_003}`;
  return text.padEnd(LINE_CHARS - 1, '.') + '\n';
}

function* chunks(chars: number): Generator<string> {
  const lines = Math.ceil(chars / LINE_CHARS);
  for (let start = 0; start < lines; start += CHUNK_LINES) {
    const block: string[] = [];
    for (let index = start; index < Math.min(lines, start + CHUNK_LINES); index += 1) block.push(bodyLine(index));
    yield block.join('');
  }
}

const gc = (globalThis as { gc?: () => void }).gc;
const live = (): number => {
  gc?.();
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.external;
};

async function main(request: StreamedOutputRequest): Promise<void> {
  const stores: Stores =
    request.backend === 'memory'
      ? createMemoryStores()
      : request.backend === 'sqlite'
        ? openSqliteStores({ path: request.sqlitePath! })
        : createPostgresStores({ connectionString: request.postgres!.url, schema: request.postgres!.schema });
  const samples: Array<{ at: string; bytes: number }> = [];
  let chunkCount = 0;
  const sample = (at: string): void => void samples.push({ at, bytes: live() });
  const kept: string[] = [];
  const dump: ToolDefinition = {
    name: 'dump_table',
    description: 'Dumps the whole table.',
    parameters: { type: 'object', properties: {} },
    execute() {
      if (request.shape === 'string') {
        // Built as a tool would: its chunks joined once into one flat string.
        const body = Array.from(chunks(request.chars)).join('');
        for (let copy = 0; copy < (request.wastefulCopies ?? 0); copy += 1) kept.push(Buffer.from(body, 'latin1').toString('latin1'));
        sample('tool built its string');
        return { content: body };
      }
      const sampled = async function* (): AsyncGenerator<string> {
        for (const chunk of chunks(request.chars)) {
          chunkCount += 1;
          if (chunkCount % 64 === 0) sample(`stream chunk ${chunkCount}`);
          yield chunk;
        }
      };
      if (request.shape === 'iterable') return { content: '', stream: sampled() };
      const iterator = sampled();
      const readable = new ReadableStream<string>({
        async pull(controller) {
          const next = await iterator.next();
          if (next.done === true) controller.close();
          else controller.enqueue(next.value);
        },
      });
      return { content: '', stream: readable };
    },
  };
  // The output store as the run sees it, sampled around each operation.
  const outputs: ToolOutputStore = {
    put: async (output) => {
      const ref = await stores.toolOutputs.put(output);
      sample('put stored');
      return ref;
    },
    putStream: async (output) => {
      const ref = await stores.toolOutputs.putStream!(output);
      sample('putStream stored');
      return ref;
    },
    get: async (refId) => {
      const stored = await stores.toolOutputs.get(refId);
      sample('get read the body');
      return stored;
    },
    close: () => stores.toolOutputs.close(),
  };
  const registry = new ToolRegistry();
  registry.register(dump);
  registry.register(createReadToolOutputTool({ store: outputs }));
  const traces: ContextTraceV5[] = [];
  // The model learns the reference from the preview in its input; each turn is read when the model is called.
  let ref = '';
  const readTurn = (input: () => object) => ({
    get parts() {
      ref ||= /ref=\\?"(out_[0-9a-z]+)\\?"/.exec(JSON.stringify(model.calls.at(-1)?.prompt ?? []))?.[1] ?? 'missing';
      return [{ type: 'tool-call', id: `call_${model.callCount}`, name: 'read_tool_output', input: { ref, ...input() } }];
    },
  });
  const model: ScriptedLanguageModel = new ScriptedLanguageModel([
    { parts: [{ type: 'tool-call', id: 'call_dump', name: 'dump_table', input: {} }] },
    readTurn(() => ({ query: 'NEEDLE-7f3a' })),
    readTurn(() => ({ lines: { start: 500_000, end: 500_002 } })),
    readTurn(() => ({ chars: { start: 64 * 700_000, end: 64 * 700_000 + 64 } })),
    { parts: [{ type: 'text', text: 'Found the needle.' }] },
  ] as never);
  const baseline = live();
  const baselineRss = process.memoryUsage().rss;
  const result = await createAgentRun(
    { id: 'streamed' },
    {
      model: createModelClient({ model }),
      tools: registry,
      outputStore: outputs,
      sessionStore: stores.sessions,
      traceSink: {
        write: async (document) => {
          traces.push(document.body as ContextTraceV5);
          sample(`turn ${document.turn} traced`);
        },
      },
      configuration: resolveContextConfiguration({ SCIENCE_AGENT_CONTEXT_WINDOW_TOKENS: '64000' }),
      now: () => 0,
    },
    { contextId: 'streamed', prompt: 'Dump the table and find the needle.' },
  ).execute();
  const session = await stores.sessions.load('streamed');
  const toolResults = result.finalMessages.filter((message) => message.role === 'tool');
  const stored = await stores.toolOutputs.get(ref);
  let matches = stored !== undefined && stored.body.length === request.chars;
  if (stored !== undefined) {
    for (let index = 0; matches && index * LINE_CHARS < stored.body.length; index += 4_099) matches = stored.body.startsWith(bodyLine(index), index * LINE_CHARS);
  }
  const output = {
    stopReason: result.stopReason,
    baseline,
    peak: Math.max(...samples.map((entry) => entry.bytes)) - baseline,
    peakAt: samples.reduce((best, entry) => (entry.bytes > best.bytes ? entry : best), samples[0]!).at,
    samples: samples.length,
    maxRssGrowth: process.resourceUsage().maxRSS * 1_024 - baselineRss,
    ref,
    storedMatches: matches,
    storedChars: stored?.body.length ?? -1,
    toolContents: toolResults.map((message) => ({ name: message.role === 'tool' ? message.toolName : '', chars: message.content.length, masked: message.role === 'tool' && message.masked === true, text: message.content.slice(0, 400) })),
    sessionBytes: Buffer.byteLength(JSON.stringify(session?.messages ?? []), 'utf8'),
    llmInputs: traces.map((trace) => trace.llmInput.messages),
    kept: kept.length,
  };
  await stores.toolOutputs.close();
  await stores.sessions.close();
  process.stdout.write(`${JSON.stringify(output)}\n`);
}

await main(JSON.parse(process.argv[2]!) as StreamedOutputRequest);
