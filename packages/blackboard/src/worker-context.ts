import type { BlackboardDiagnostic } from './diagnostics.js';
import type { WorkerMessage } from './worker-message.js';
import type { WorkerContextChunk, WorkerContextTailItem } from './worker-context-chunk.js';
import { assembleWorkerContextSections, type AssembleWorkerContextOptions, type WorkerContextSections } from './worker-context-sections.js';

/**
 * The flat single-pack form: the leading run of static chunks (shared
 * context, skill body, static segments) as the cache-stable `system` part;
 * everything after, then the tail, as the `user` part. Parts are joined by
 * a blank line; an empty part is the empty string.
 */
export interface FlatWorkerContext {
  readonly system: string;
  readonly user: string;
  readonly diagnostics: readonly BlackboardDiagnostic[];
}

/** `assembleWorkerContextSections` rendered in the flat form. */
export function assembleWorkerContext(options: AssembleWorkerContextOptions): FlatWorkerContext {
  return flattenWorkerContext(assembleWorkerContextSections(options));
}

export function flattenWorkerContext(sections: WorkerContextSections): FlatWorkerContext {
  const firstDynamic = sections.chunks.findIndex((chunk) => chunk.tier === 'dynamic');
  const split = firstDynamic === -1 ? sections.chunks.length : firstDynamic;
  const system = sections.chunks.slice(0, split).map(renderChunkText);
  const user = [...sections.chunks.slice(split).map(renderChunkText), ...sections.tail.map(renderTailItem)];
  return { system: system.join('\n\n'), user: user.join('\n\n'), diagnostics: sections.diagnostics };
}

/** A chunk as text: its label line, then its content; history turns as `user: …` / `assistant: …` lines. */
export function renderChunkText(chunk: WorkerContextChunk): string {
  const body = chunk.kind === 'history' ? chunk.turns.map((turn) => `${turn.role}: ${turn.content}`).join('\n') : chunk.text;
  return chunk.label === undefined ? body : `${chunk.label}\n${body}`;
}

export function renderTailItem(item: WorkerContextTailItem): string {
  return `${item.label}\n${item.text}`;
}

/** Preset prompt entries on top (system), then the flat system part, then the user part; empty parts omitted. */
export function flatWorkerMessages(flat: FlatWorkerContext, presetEntries: readonly WorkerMessage[] = []): WorkerMessage[] {
  return [
    ...presetEntries,
    ...(flat.system.length > 0 ? [{ role: 'system' as const, content: flat.system }] : []),
    ...(flat.user.length > 0 ? [{ role: 'user' as const, content: flat.user }] : []),
  ];
}
