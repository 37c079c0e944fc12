import {
  ENTRY_ROLE_ARCHIVED,
  ENTRY_ROLE_FINAL,
  type BlackboardCommitResult,
  type BlackboardEntry,
  type BlackboardStore,
  type BlackboardWrite,
} from './blackboard-store.js';
import { DEFAULT_WELL_KNOWN_TAGS } from './well-known-tags.js';

/** Marks an archived preview. */
export const ARCHIVE_MARK = '〔已归档〕';
/** Default preview length, in code points. */
export const ARCHIVE_PREVIEW_CHARS = 80;

export interface CompressAfterWorkerOptions {
  readonly store: BlackboardStore;
  /** Patterns whose process entries are archived, typically the accepted worker's `outputTags`. */
  readonly processTags: readonly string[];
  /** The final-draft summary written to `上下文.定稿摘要` (replacing the previous one); omit to keep it. */
  readonly summary?: string;
  readonly summaryTag?: string;
  readonly previewChars?: number;
  readonly signal?: AbortSignal;
}

/**
 * After a run worker is accepted (seed 004 §5): every tag under `processTags`
 * loses its process entries (neither `final` nor archived) and gains one
 * archived preview of the newest of them; final entries stay as written.
 * The summary replaces the previous one. One atomic commit (guarded
 * by the head revision read), so a failure archives nothing. Never calls a
 * model: the summary comes from the accepted run itself.
 */
export async function compressAfterWorker(options: CompressAfterWorkerOptions): Promise<BlackboardCommitResult | undefined> {
  const { store, signal } = options;
  const previewChars = options.previewChars ?? ARCHIVE_PREVIEW_CHARS;
  const revision = await store.headRevision({ signal });
  const entries = await store.query(options.processTags, { signal });
  const writes: BlackboardWrite[] = [];
  const remove: number[] = [];
  const byTag = new Map<string, BlackboardEntry[]>();
  for (const entry of entries) byTag.set(entry.tag, [...(byTag.get(entry.tag) ?? []), entry]);
  for (const [tag, tagEntries] of byTag) {
    const process = tagEntries.filter((entry) => entry.role !== ENTRY_ROLE_FINAL && entry.role !== ENTRY_ROLE_ARCHIVED);
    const newestProcess = process.at(-1);
    if (newestProcess === undefined) continue;
    remove.push(...process.map((entry) => entry.revision));
    writes.push({ tag, content: archivePreview(newestProcess.content, previewChars), role: ENTRY_ROLE_ARCHIVED });
  }
  if (options.summary !== undefined) {
    writes.push({ tag: options.summaryTag ?? DEFAULT_WELL_KNOWN_TAGS.finalSummary, content: options.summary, role: ENTRY_ROLE_FINAL, mode: 'replace' });
  }
  if (writes.length === 0) return undefined;
  return store.commit({ author: { kind: 'runtime' }, writes, remove, expectedRevision: revision }, { signal });
}

/** `〔已归档〕` then the first `previewChars` code points of the first line, `…` when cut. */
export function archivePreview(content: string, previewChars: number = ARCHIVE_PREVIEW_CHARS): string {
  const characters = Array.from(content.replaceAll('\n', ' ').trim());
  const cut = characters.length > previewChars;
  return `${ARCHIVE_MARK}${characters.slice(0, previewChars).join('')}${cut ? '…' : ''}`;
}
