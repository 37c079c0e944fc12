// Trace files (`<dir>/<context-id>/turn-0001.json`, schema v5) read back and
// summarised per turn, for `trace show`, `trace diff`, the viewer and `examples`.
import { readdir, readFile, stat } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import type { CanonicalMessage, ContextTraceV5 } from '@strata/context';
import { CliInputError } from '../cli-input-error.js';

export interface TraceTurn {
  readonly file: string;
  readonly trace: ContextTraceV5;
}

/** The turns of one context, in turn order (recovery attempts after their turn). */
export interface TraceRun {
  readonly contextId: string;
  readonly turns: readonly TraceTurn[];
}

const TRACE_FILE = /^turn-(\d+)(?:-recovery-(\d+))?\.json$/;

/**
 * Every trace under `path` (a trace file, a context's folder or a trace
 * directory, searched to any depth), grouped by context id. A file that is
 * not a v5 trace is a `CliInputError` naming it; a path with no trace is one too.
 */
export async function readTraceDirectory(path: string): Promise<TraceRun[]> {
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
  for (const file of files) {
    const name = relative(process.cwd(), file) || file;
    let trace: ContextTraceV5;
    try {
      trace = JSON.parse(await readFile(file, 'utf8')) as ContextTraceV5;
    } catch (error) {
      throw new CliInputError({ culprit: name, message: `${name}: not JSON (${(error as Error).message})`, cause: error });
    }
    if (typeof trace !== 'object' || trace === null || trace.schemaVersion !== 5 || typeof trace.contextId !== 'string' || typeof trace.turn !== 'number') {
      throw new CliInputError({ culprit: name, message: `${name}: not a context trace of schema version 5 (schemaVersion, contextId and turn are required)` });
    }
    const list = runs.get(trace.contextId) ?? [];
    list.push({ file: name, trace });
    runs.set(trace.contextId, list);
  }
  return [...runs.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([contextId, turns]) => ({ contextId, turns: turns.sort((a, b) => a.trace.turn - b.trace.turn || (a.trace.recoveryAttempt ?? 0) - (b.trace.recoveryAttempt ?? 0)) }));
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

/** A one-line description of a turn's compaction, or null when none ran. */
export function compactionSummary(trace: ContextTraceV5): string | null {
  const compaction = trace.compaction;
  if (!compaction.reason) return null;
  const refs = compaction.compactedOutputRefs.length;
  return `${compaction.reason}: ${compaction.estimatedTokensBefore ?? '?'} -> ${compaction.estimatedTokensAfter ?? '?'} tokens${refs > 0 ? `, ${refs} outputs stored` : ''}${compaction.summarizedMessages > 0 ? `, ${compaction.summarizedMessages} messages summarized` : ''}`;
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
  let compacted = 0;
  let kept = 0;
  for (const message of after.llmInput.messages) {
    const key = messageKey(message);
    if (keysBefore.has(key)) kept += 1;
    else if (message.role === 'tool' && resultsBefore.has(message.toolCallId)) compacted += 1;
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
    messages: { added, removed, compacted, kept },
    tokens: { before: tokensByPart(before), after: tokensByPart(after) },
  };
}
