import type { ContextDiagnostic } from './contributor.js';
import type { UserMessage } from './messages.js';
import { escapeWrapped, wrapperBalanceProblem } from './wrapper-markup.js';

/** The sections of a scientific checkpoint, in order. Exactly one next step. */
export const CHECKPOINT_SECTIONS = Object.freeze([
  'Completed work',
  'Evidence',
  'Decisions',
  'Failed or abandoned directions',
  'Pending conditions',
  'Optional directions',
  'Next step',
] as const);

export const CHECKPOINT_INSTRUCTIONS = `Summarize the transcript above into a checkpoint that lets the work continue without it.
Write exactly these sections, each as a "## <name>" heading followed by short bullet points:
${CHECKPOINT_SECTIONS.map((name) => `## ${name}`).join('\n')}
Keep concrete facts: file paths, identifiers, numbers, error messages, and every stored-output reference (ref="...") you rely on.
"Pending conditions" lists what must hold before the task is done. "Next step" holds exactly one step.
Do not invent results. Be shorter than the transcript.`;

export interface NormalizedCheckpoint {
  readonly text: string;
  readonly diagnostics: readonly ContextDiagnostic[];
}

function canonicalName(heading: string): string | undefined {
  const wanted = heading.trim().toLowerCase().replace(/[:：]$/, '');
  return CHECKPOINT_SECTIONS.find((name) => name.toLowerCase() === wanted);
}

/**
 * A light structure check: normalizes missing or duplicate sections, keeps
 * one next step, reports malformed structure and references to stored
 * outputs the source did not have. It does not judge the evidence.
 */
export function normalizeCheckpoint(text: string, options: { knownRefs: ReadonlySet<string> }): NormalizedCheckpoint {
  const diagnostics: ContextDiagnostic[] = [];
  const bodies = new Map<string, string[]>();
  let current: string | undefined;
  const preamble: string[] = [];
  for (const line of text.split('\n')) {
    const heading = /^#{1,6}\s+(.+?)\s*#*\s*$/.exec(line);
    if (heading) {
      const name = canonicalName(heading[1]!);
      if (name) {
        if (bodies.has(name)) diagnostics.push({ code: 'CHECKPOINT_DUPLICATE_SECTION', severity: 'warning', subject: name, message: `checkpoint repeats section "${name}"; merged` });
        current = name;
        if (!bodies.has(name)) bodies.set(name, []);
        continue;
      }
    }
    if (current) bodies.get(current)!.push(line);
    else if (line.trim() !== '') preamble.push(line);
  }
  if (bodies.size === 0) diagnostics.push({ code: 'CHECKPOINT_MALFORMED', severity: 'warning', message: 'checkpoint has none of the expected sections; its text is kept under "Completed work"' });
  if (preamble.length > 0) bodies.set('Completed work', [...preamble, ...(bodies.get('Completed work') ?? [])]);
  for (const name of CHECKPOINT_SECTIONS) {
    if (!bodies.has(name) || bodies.get(name)!.every((line) => line.trim() === '')) {
      if (bodies.size > 0) diagnostics.push({ code: 'CHECKPOINT_MISSING_SECTION', severity: 'info', subject: name, message: `checkpoint has no "${name}" section; added as empty` });
      bodies.set(name, ['- (none)']);
    }
  }
  const steps = bodies.get('Next step')!.filter((line) => line.trim() !== '');
  if (steps.length > 1) {
    diagnostics.push({ code: 'CHECKPOINT_MULTIPLE_NEXT_STEPS', severity: 'warning', subject: 'Next step', message: `checkpoint lists ${steps.length} next steps; kept the first` });
    bodies.set('Next step', [steps[0]!]);
  }
  const rendered = CHECKPOINT_SECTIONS.map((name) => `## ${name}\n${bodies.get(name)!.join('\n').trim()}`).join('\n\n');
  for (const match of rendered.matchAll(/ref="([^"]+)"/g)) {
    if (!options.knownRefs.has(match[1]!)) {
      diagnostics.push({ code: 'CHECKPOINT_UNKNOWN_REFERENCE', severity: 'warning', subject: match[1]!, message: `checkpoint cites stored output ref="${match[1]}", which the summarized transcript does not hold` });
    }
  }
  return { text: rendered, diagnostics };
}

const CHECKPOINT_OPENER = '<checkpoint authority="data_only">\n';
const CHECKPOINT_CLOSER = '\n</checkpoint>';

/**
 * The resident checkpoint: a hidden user message the window always keeps.
 * Its text is the summarizer's (or an imported checkpoint's), so it is
 * escaped: a summary that repeats a wrapper tag cannot close the checkpoint
 * or open another wrapper.
 */
export function checkpointMessage(text: string, diagnostics: readonly ContextDiagnostic[] = []): UserMessage {
  const notes = diagnostics.length > 0 ? `\n<!-- structure: ${diagnostics.map((diagnostic) => diagnostic.code).join(', ')} -->` : '';
  return { role: 'user', content: `${CHECKPOINT_OPENER}${escapeWrapped(text)}${notes}${CHECKPOINT_CLOSER}`, hidden: true, authority: 'data_only', checkpoint: true };
}

/**
 * A stored checkpoint as it may be sent: one written before checkpoints were
 * escaped (its text may break or forge a wrapper) is wrapped again with its
 * text escaped, and a checkpoint of another shape is escaped only when its
 * wrapper tags do not balance. Any other is returned as it is, the same object.
 */
export function soundCheckpoint(message: UserMessage): UserMessage {
  const { content } = message;
  const framed = content.startsWith(CHECKPOINT_OPENER) && content.endsWith(CHECKPOINT_CLOSER) && content.length >= CHECKPOINT_OPENER.length + CHECKPOINT_CLOSER.length;
  const sound = framed
    ? `${CHECKPOINT_OPENER}${escapeWrapped(content.slice(CHECKPOINT_OPENER.length, content.length - CHECKPOINT_CLOSER.length))}${CHECKPOINT_CLOSER}`
    : wrapperBalanceProblem(content) === undefined
      ? content
      : escapeWrapped(content);
  return sound === content ? message : { ...message, content: sound };
}
