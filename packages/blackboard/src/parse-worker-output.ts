import { ENTRY_ROLE_FINAL, ENTRY_ROLE_PROCESS, type BlackboardWrite } from './blackboard-store.js';
import type { WorkerContract } from './resolve-worker-contract.js';

export type ParsedWorkerOutput = { readonly ok: true; readonly writes: readonly BlackboardWrite[] } | { readonly ok: false; readonly problem: string };

const FENCED_JSON = /^```(?:json)?\s*\n([\s\S]*?)\n```\s*$/;

/**
 * Turns a worker's text into writes of its `outputTags`. One output tag: the
 * whole text (trimmed). Several: a JSON object (optionally in a ```json
 * fence) from output tag to string content; keys outside `outputTags` or a
 * non-string value fail the whole output. Final tags are written with role
 * `final`, the others `process`.
 */
export function parseWorkerOutput(text: string, contract: WorkerContract): ParsedWorkerOutput {
  const roleOf = (tag: string) => (contract.finalTags.includes(tag) ? ENTRY_ROLE_FINAL : ENTRY_ROLE_PROCESS);
  const trimmed = text.trim();
  if (contract.outputTags.length === 0) return { ok: true, writes: [] };
  if (trimmed.length === 0) return { ok: false, problem: 'the model returned no text' };
  if (contract.outputTags.length === 1) {
    const tag = contract.outputTags[0] as string;
    return { ok: true, writes: [{ tag, content: trimmed, role: roleOf(tag) }] };
  }
  const json = FENCED_JSON.exec(trimmed)?.[1] ?? trimmed;
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return { ok: false, problem: `expected a JSON object keyed by output tag (${contract.outputTags.join(', ')})` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { ok: false, problem: 'expected a JSON object keyed by output tag' };
  const writes: BlackboardWrite[] = [];
  // Written in outputTags order, whatever order the model used.
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    if (!contract.outputTags.includes(key)) return { ok: false, problem: `"${key}" is not an output tag of ${contract.skill}` };
  }
  for (const tag of contract.outputTags) {
    const content = record[tag];
    if (content === undefined) continue;
    if (typeof content !== 'string') return { ok: false, problem: `the content of "${tag}" must be a string` };
    writes.push({ tag, content, role: roleOf(tag) });
  }
  if (writes.length === 0) return { ok: false, problem: 'the output wrote none of the output tags' };
  return { ok: true, writes };
}
