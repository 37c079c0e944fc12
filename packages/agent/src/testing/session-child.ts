// A process on one session, for the agent's two-process tests (forked by session-concurrency.test.ts).
// Role "writer": appends a user message whenever the parent asks. Role "agent": runs an agent that
// compacts; its tool and its summarizer tell the parent when they run and wait for "continue", so the
// parent can make the writer append at exactly those moments.
import { resolveContextConfiguration, type CanonicalHistory, type ContextTraceV5, type JsonValue, type ToolOutputStore } from '@strata/context';
import { createModelClient, ScriptedLanguageModel, type ScriptedTurn } from '@strata/model';
import { createPostgresStores, openSqliteStores, type Stores } from '@strata/store';
import { ToolRegistry } from '@strata/tools';
import { createAgentRun } from '../create-agent-run.js';

export type StoreTarget = { readonly kind: 'sqlite'; readonly path: string } | { readonly kind: 'postgres'; readonly url: string; readonly schema: string };

export type ChildRequest =
  | { readonly type: 'start-writer'; readonly target: StoreTarget; readonly contextId: string }
  | { readonly type: 'start-agent'; readonly target: StoreTarget; readonly contextId: string; readonly steps: number }
  | { readonly type: 'append'; readonly text: string }
  | { readonly type: 'continue' }
  | { readonly type: 'close' };

export type ChildReport =
  | { readonly type: 'ready' }
  | { readonly type: 'appended'; readonly version: number }
  | { readonly type: 'paused'; readonly at: 'tool' | 'summarizer' }
  | { readonly type: 'finished'; readonly stopReason: string; readonly finalMessages: CanonicalHistory; readonly traces: readonly ContextTraceV5[]; readonly diagnostics: readonly string[]; readonly error?: string }
  | { readonly type: 'failed'; readonly error: string };

const send = (report: ChildReport): void => void process.send!(report);

function open(target: StoreTarget): Stores {
  return target.kind === 'sqlite' ? openSqliteStores({ path: target.path }) : createPostgresStores({ connectionString: target.url, schema: target.schema });
}

let continued: (() => void) | undefined;
const pause = (at: 'tool' | 'summarizer'): Promise<void> =>
  new Promise((resolve) => {
    continued = resolve;
    send({ type: 'paused', at });
  });

/** Keeps no reference, so only summaries relieve pressure and the agent must replace its session. */
const noReferences: ToolOutputStore = { put: async () => ({ id: 'none', chars: 0, lines: 0, bytes: 0 }), get: async () => undefined, close: async () => undefined };

/** The checkpoint names every foreign marker it summarized, so a summarized message is still accounted for. */
function checkpointOf(transcript: CanonicalHistory): string {
  const markers = [...new Set(JSON.stringify(transcript).match(/foreign-\d+/g) ?? [])];
  return ['## Completed work', '- read the notes', '## Evidence', `- stable at 21.5 C; seen: ${markers.join(', ') || 'nothing else'}`, '## Decisions', '- none',
    '## Failed or abandoned directions', '- none', '## Pending conditions', '- none', '## Optional directions', '- none', '## Next step', '- answer the user'].join('\n');
}

async function runAgent(request: Extract<ChildRequest, { type: 'start-agent' }>): Promise<void> {
  const stores = open(request.target);
  const script: ScriptedTurn[] = [];
  for (let page = 1; page <= request.steps; page += 1) script.push({ parts: [{ type: 'tool-call', id: `p${page}`, name: 'read_notes', input: { page } as JsonValue }] });
  script.push({ parts: [{ type: 'text', text: 'The sample stayed at 21.5 C.' }] });
  const registry = new ToolRegistry();
  registry.register({
    name: 'read_notes',
    description: 'Reads one page of lab notes.',
    parameters: { type: 'object', properties: { page: { type: 'integer' } }, required: ['page'] },
    execute: async (input) => {
      await pause('tool');
      return { content: `Page ${(input as { page: number }).page}: ` + 'the sample was stable at 21.5 C; '.repeat(40) };
    },
  });
  const traces: ContextTraceV5[] = [];
  const result = await createAgentRun(
    { id: 'lab', maskStoredResults: false },
    {
      model: createModelClient({ model: new ScriptedLanguageModel(script) }),
      tools: registry,
      outputStore: noReferences,
      sessionStore: stores.sessions,
      traceSink: { write: async (document) => void traces.push(document.body as ContextTraceV5) },
      summarizer: {
        async summarize(summary) {
          await pause('summarizer');
          return checkpointOf(summary.transcript);
        },
      },
      configuration: resolveContextConfiguration({ SCIENCE_AGENT_CONTEXT_WINDOW_TOKENS: '3000', SCIENCE_AGENT_CONTEXT_COMPACTION_PRESSURE_PERCENT: '80' }),
    },
    { contextId: request.contextId, prompt: 'Read the notes and tell me the temperature.' },
  ).execute();
  await stores.close();
  send({
    type: 'finished',
    stopReason: result.stopReason,
    finalMessages: result.finalMessages,
    traces,
    diagnostics: result.diagnostics.map((diagnostic) => diagnostic.code),
    ...(result.error === undefined ? {} : { error: String(result.error) }),
  });
}

let writer: { stores: Stores; contextId: string } | undefined;

process.on('message', (request: ChildRequest) => {
  void (async () => {
    switch (request.type) {
      case 'start-writer':
        writer = { stores: open(request.target), contextId: request.contextId };
        // Opening migrates the schema; a first read makes sure it is done before the agent starts.
        await writer.stores.sessions.load(request.contextId);
        send({ type: 'ready' });
        return;
      case 'start-agent':
        return runAgent(request);
      case 'append': {
        const written = await writer!.stores.sessions.append(writer!.contextId, [{ role: 'user', content: request.text }]);
        send({ type: 'appended', version: written.version });
        return;
      }
      case 'continue':
        continued?.();
        return;
      case 'close':
        await writer?.stores.close();
        process.disconnect();
        return;
    }
  })().catch((error: unknown) => send({ type: 'failed', error: error instanceof Error ? error.stack ?? error.message : String(error) }));
});
