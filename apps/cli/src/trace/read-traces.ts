// Trace files (`<dir>/<context-id>/turn-0001.json`, schema v5) read back and
// summarised per turn, for `trace show`, `trace diff`, the viewer and `examples`.
import { readdir, readFile, stat } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describeReceipt, type CanonicalMessage, type ContextTraceV5 } from '@strata/context';
import { CliInputError } from '../cli-input-error.js';

export interface TraceTurn {
  readonly file: string;
  readonly trace: ContextTraceV5;
}

/** The turns of one context, in turn order (recovery attempts after their turn). */
export interface TraceRun {
  readonly contextId: string;
  /**
   * The folder holding the run's context folder, relative to the directory
   * read (a replay's policy); absent or '' at the top.
   */
  readonly group?: string;
  readonly turns: readonly TraceTurn[];
}

const TRACE_FILE = /^turn-(\d+)(?:-recovery-(\d+))?\.json$/;

/**
 * Every trace under `path` (a trace file, a context's folder or a trace
 * directory, searched to any depth), grouped by context id. A file that is
 * not a v5 trace is a `CliInputError` naming it; a path with no trace is one too.
 * With `cache`, a file of the same size and modification time as when it was
 * last read is not parsed again (`trace serve` reads a growing directory on every poll).
 */
/** Traces already parsed, by file, with the size and time they were read at; see `readTraceDirectory`. */
export type TraceFileCache = Map<string, { readonly size: number; readonly mtimeMs: number; readonly trace: ContextTraceV5 }>;

export async function readTraceDirectory(path: string, cache?: TraceFileCache): Promise<TraceRun[]> {
  const root = resolve(path);
  let info;
  try {
    info = await stat(root);
  } catch {
    throw new CliInputError({ culprit: path, message: `${path}: no such file or directory` });
  }
  const files = info.isDirectory() ? await traceFiles(root) : [root];
  if (files.length === 0) throw new CliInputError({ culprit: path, message: `${path}: no trace files (turn-NNNN.json) found` });
  const runs = new Map<string, TraceTurn[]>();
  const groups = new Map<string, string>();
  for (const file of files) {
    const name = relative(process.cwd(), file) || file;
    let trace: ContextTraceV5;
    const seen = cache ? await stat(file) : undefined;
    const cached = seen ? cache!.get(file) : undefined;
    if (cached && seen && cached.size === seen.size && cached.mtimeMs === seen.mtimeMs) trace = cached.trace;
    else {
      try {
        trace = JSON.parse(await readFile(file, 'utf8')) as ContextTraceV5;
      } catch (error) {
        throw new CliInputError({ culprit: name, message: `${name}: not JSON (${(error as Error).message})`, cause: error });
      }
    }
    if (typeof trace !== 'object' || trace === null || trace.schemaVersion !== 5 || typeof trace.contextId !== 'string' || typeof trace.turn !== 'number') {
      throw new CliInputError({ culprit: name, message: `${name}: not a context trace of schema version 5 (schemaVersion, contextId and turn are required)` });
    }
    if (seen) cache!.set(file, { size: seen.size, mtimeMs: seen.mtimeMs, trace });
    const list = runs.get(trace.contextId) ?? [];
    list.push({ file: name, trace });
    runs.set(trace.contextId, list);
    const group = relative(root, dirname(dirname(file))).split(sep).join('/');
    groups.set(trace.contextId, group.startsWith('..') ? '' : group);
  }
  return [...runs.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([contextId, turns]) => ({ contextId, group: groups.get(contextId) ?? '', turns: turns.sort((a, b) => a.trace.turn - b.trace.turn || (a.trace.recoveryAttempt ?? 0) - (b.trace.recoveryAttempt ?? 0)) }));
}

async function traceFiles(directory: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of (await readdir(directory, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name))) {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) found.push(...(await traceFiles(path)));
    else if (TRACE_FILE.test(entry.name)) found.push(path);
  }
  return found;
}

/** Input tokens of a turn by part, as the assembler charged them. */
export interface TokensByPart {
  readonly system: number;
  readonly tools: number;
  /** Contributor messages and data attachments (call-local). */
  readonly data: number;
  readonly history: number;
  readonly total: number;
  readonly window: number;
}

export function tokensByPart(trace: ContextTraceV5): TokensByPart | null {
  const budget = trace.budget;
  if (!budget) return null;
  const history = trace.renderedContext?.window.usedTokens ?? Math.max(0, budget.totalTokens - budget.systemPromptUsedTokens - budget.toolTokens - budget.callLocalTokens);
  return { system: budget.systemPromptUsedTokens, tools: budget.toolTokens, data: budget.callLocalTokens, history, total: budget.totalTokens, window: budget.inputCapTokens };
}

/** Sections of a turn: admitted (whole), truncated or dropped, from the budget's diagnostics. */
export function sectionOutcomes(trace: ContextTraceV5): { admitted: string[]; truncated: string[]; dropped: string[] } {
  const diagnostics = trace.admitted?.diagnostics ?? [];
  const subjects = (suffix: string) => diagnostics.filter((diagnostic) => diagnostic.code.endsWith(suffix) && diagnostic.subject !== undefined).map((diagnostic) => diagnostic.subject!);
  const truncated = subjects('_TRUNCATED');
  const dropped = subjects('_DROPPED');
  const admitted = (trace.admitted?.sections ?? []).map((section) => section.id).filter((id) => !truncated.includes(id));
  return { admitted, truncated, dropped };
}

/**
 * Whether the turn's trace records a compaction that changed something. Traces
 * written before receipts may record a pass that changed nothing ("4024 -> 4024
 * tokens, 0 outputs stored"): that is not a compaction.
 */
export function compacted(trace: ContextTraceV5): boolean {
  const compaction = trace.compaction;
  if (!compaction.reason) return false;
  if (compaction.receipts) return compaction.receipts.length > 0 || compaction.summarizedMessages > 0;
  return compaction.compactedOutputRefs.length > 0 || compaction.summarizedMessages > 0 || compaction.estimatedTokensBefore !== compaction.estimatedTokensAfter;
}

/** Why the turn's compaction ran, in words: the pressure against the threshold and the cap; null when unknown. */
export function compactionWhy(trace: ContextTraceV5): string | null {
  const trigger = trace.compaction.trigger;
  if (!trigger) return null;
  const measured = trigger.tokens === null ? `${trigger.historyMessages} messages` : `${trigger.tokens} tokens, ${(trigger.pressure! * 100).toFixed(1)}% of the ${trigger.capTokens}-token cap`;
  return `${trigger.reason} at ${measured} (threshold ${trigger.thresholdTokens})`;
}

/** A one-line description of a turn's compaction, or null when none changed anything. */
export function compactionSummary(trace: ContextTraceV5): string | null {
  if (!compacted(trace)) return null;
  const compaction = trace.compaction;
  const refs = compaction.compactedOutputRefs.length;
  const why = compactionWhy(trace);
  return `${compaction.reason}: ${compaction.estimatedTokensBefore ?? '?'} -> ${compaction.estimatedTokensAfter ?? '?'} tokens${refs > 0 ? `, ${refs} outputs stored` : ''}${compaction.summarizedMessages > 0 ? `, ${compaction.summarizedMessages} messages summarized` : ''}${why ? `; ${why}` : ''}`;
}

/** The receipts of a turn's compaction, one line each (empty when none ran or the trace predates receipts). */
export function receiptLines(trace: ContextTraceV5): string[] {
  return compacted(trace) ? (trace.compaction.receipts ?? []).map(describeReceipt) : [];
}

/**
 * The receipts of the stored outputs that left the window at this turn, one
 * line each: those the window's index lists now and did not list at the
 * `previous` turn of the run (every listed one at the first turn). Empty
 * when the window listed none, or the trace predates window receipts.
 */
export function windowReceiptLines(trace: ContextTraceV5, previous?: ContextTraceV5): string[] {
  const before = new Set((previous?.renderedContext?.windowReceipts ?? []).map((receipt) => receipt.location.kind === 'checkpoint' ? '' : receipt.location.ref));
  return (trace.renderedContext?.windowReceipts ?? []).filter((receipt) => receipt.location.kind === 'checkpoint' || !before.has(receipt.location.ref)).map(describeReceipt);
}

/** A stable key for a message, to compare two turns' inputs. */
function messageKey(message: CanonicalMessage): string {
  return JSON.stringify(message);
}

export interface TurnDiff {
  readonly sections: { readonly added: string[]; readonly removed: string[]; readonly truncated: string[]; readonly dropped: string[] };
  readonly messages: { readonly added: number; readonly removed: number; readonly compacted: number; readonly kept: number };
  readonly tokens: { readonly before: TokensByPart | null; readonly after: TokensByPart | null };
}

/**
 * What changed from one turn's input to another's: sections admitted,
 * truncated or dropped; messages added, removed, or compacted (a tool result
 * of the same call sent in a different form); tokens by part.
 */
export function diffTurns(before: ContextTraceV5, after: ContextTraceV5): TurnDiff {
  const a = sectionOutcomes(before);
  const b = sectionOutcomes(after);
  const sectionsBefore = new Set([...a.admitted, ...a.truncated]);
  const sectionsAfter = new Set([...b.admitted, ...b.truncated]);
  const keysBefore = new Set(before.llmInput.messages.map(messageKey));
  const keysAfter = new Set(after.llmInput.messages.map(messageKey));
  const resultsBefore = new Map(before.llmInput.messages.flatMap((message) => (message.role === 'tool' ? [[message.toolCallId, messageKey(message)] as const] : [])));
  let added = 0;
  let changedForm = 0;
  let kept = 0;
  for (const message of after.llmInput.messages) {
    const key = messageKey(message);
    if (keysBefore.has(key)) kept += 1;
    else if (message.role === 'tool' && resultsBefore.has(message.toolCallId)) changedForm += 1;
    else added += 1;
  }
  const resultsAfter = new Set(after.llmInput.messages.flatMap((message) => (message.role === 'tool' ? [message.toolCallId] : [])));
  const removed = before.llmInput.messages.filter((message) => !keysAfter.has(messageKey(message)) && !(message.role === 'tool' && resultsAfter.has(message.toolCallId))).length;
  return {
    sections: {
      added: [...sectionsAfter].filter((id) => !sectionsBefore.has(id)),
      removed: [...sectionsBefore].filter((id) => !sectionsAfter.has(id)),
      truncated: b.truncated,
      dropped: b.dropped,
    },
    // What the later turn's own compaction took out, when its trace lists it; else what changed form between the two inputs.
    messages: { added, removed, compacted: compacted(after) && after.compaction.receipts ? Math.max(after.compaction.receipts.length, changedForm) : changedForm, kept },
    tokens: { before: tokensByPart(before), after: tokensByPart(after) },
  };
}
