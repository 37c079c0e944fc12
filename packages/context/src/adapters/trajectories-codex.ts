// Codex CLI rollout files (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`):
// one `{ timestamp, type, payload }` line per item; the conversation is the
// `response_item` lines, OpenAI Responses API items.
import type { ContextInputError } from '../errors/context-input-error.js';
import type { CanonicalMessage, JsonValue, MediaPart, ToolCall } from '../messages.js';
import { type Fields, checkedMedia, isRecord, readArray, readJson, readNonEmptyString, readRecord, readString, readToolArguments, unexpected } from './adapter-input.js';
import { mediaFromUrl } from './media.js';
import { eachLine, StepHistory, trajectoryLines, type TrajectoryLine, type TrajectoryStep } from './trajectories-steps.js';

/** Rollout line types; only `session_meta` (its base instructions) and `response_item` carry what the model saw. */
const ROLLOUT_TYPES = new Set(['session_meta', 'response_item', 'turn_context', 'event_msg', 'compacted']);

/** Response items that belong to the model's side of a step. */
const MODEL_ITEMS = new Set(['reasoning', 'function_call', 'custom_tool_call', 'local_shell_call']);

/** Items the harness or a hosted tool records, with no part in the history: left out. */
const LEFT_OUT_ITEMS = new Set(['web_search_call', 'ghost_snapshot', 'compaction', 'compaction_summary', 'other']);

/** Whether one parsed line looks like a Codex rollout line (or, in the first rollouts, a bare response item). */
export function isCodexLine(value: unknown): boolean {
  return isRecord(value) && typeof value.type === 'string' && ROLLOUT_TYPES.has(value.type) && isRecord(value.payload);
}

/**
 * Responses API items read into a step history. A run of model items
 * (reasoning, assistant messages, function, custom and local shell calls)
 * is one step, ended by anything else; outputs answer their calls by
 * `call_id`.
 */
export class ResponseItemReader {
  readonly steps = new StepHistory();
  private current: TrajectoryStep | undefined;

  /** Reads one item (`path` names it in errors) whole before recording it. */
  read(value: unknown, path: string): void {
    const item = readRecord(value, path, 'a response item object');
    const type = readString(item.type, `${path}.type`);
    if (type === 'message') {
      const role = item.role;
      if (role !== 'assistant' && role !== 'user' && role !== 'developer' && role !== 'system') throw unexpected(`${path}.role`, '"user", "assistant", "developer" or "system"', role);
      const { text, media } = readItemContent(item.content, `${path}.content`);
      if (role === 'assistant') {
        const step = this.modelStep();
        step.text.push(step.text.length > 0 && text !== '' ? `\n\n${text}` : text);
        return;
      }
      this.current = undefined;
      if (role === 'user') this.steps.push(media.length > 0 ? { role: 'user', content: text, media } : { role: 'user', content: text });
      else this.steps.push({ role: 'system', content: text });
      return;
    }
    if (type === 'reasoning') {
      const texts = [...readTexts(item.summary, `${path}.summary`), ...(item.content === undefined || item.content === null ? [] : readTexts(item.content, `${path}.content`))];
      const encrypted = item.encrypted_content === undefined || item.encrypted_content === null ? undefined : readString(item.encrypted_content, `${path}.encrypted_content`);
      const step = this.modelStep();
      // The item's id goes with its encrypted content: a Responses request sends the item back as the model made it.
      const openai: Record<string, string> = typeof item.id === 'string' ? { itemId: item.id, reasoningEncryptedContent: encrypted ?? '' } : { reasoningEncryptedContent: encrypted ?? '' };
      step.reasoning.push(encrypted ? { text: texts.join('\n\n'), providerMetadata: { openai } } : { text: texts.join('\n\n') });
      return;
    }
    if (type === 'function_call' || type === 'custom_tool_call' || type === 'local_shell_call') {
      const call = readCall(item, type, path);
      this.steps.call(this.modelStep(), call);
      return;
    }
    if (type === 'function_call_output' || type === 'custom_tool_call_output') {
      const toolCallId = readNonEmptyString(item.call_id, `${path}.call_id`);
      const { content, isError } = readOutput(item.output, `${path}.output`);
      this.current = undefined;
      this.steps.result({ role: 'tool', toolCallId, toolName: this.steps.toolName(toolCallId) ?? 'unknown', content, ...(isError ? { isError: true } : {}) });
      return;
    }
    if (LEFT_OUT_ITEMS.has(type)) return;
    throw unexpected(`${path}.type`, '"message", "reasoning", "function_call", "function_call_output", "custom_tool_call", "custom_tool_call_output" or "local_shell_call"', type);
  }

  private modelStep(): TrajectoryStep {
    this.current ??= this.steps.step();
    return this.current;
  }
}

function readCall(item: Fields, type: string, path: string): ToolCall {
  if (type === 'local_shell_call') {
    const id = readNonEmptyString(item.call_id ?? item.id, `${path}.call_id`);
    return { id, name: 'local_shell', input: readJson(readRecord(item.action, `${path}.action`, 'an exec action object'), `${path}.action`) };
  }
  const id = readNonEmptyString(item.call_id, `${path}.call_id`);
  const name = readNonEmptyString(item.name, `${path}.name`);
  // A custom tool takes free text (apply_patch's patch): kept as the string it is.
  if (type === 'custom_tool_call') return { id, name, input: readString(item.input, `${path}.input`) };
  const args = item.arguments;
  const input: JsonValue = typeof args === 'string' ? readToolArguments(args, `${path}.arguments`) : args === undefined ? {} : readJson(args, `${path}.arguments`);
  return { id, name, input };
}

/** `input_text` / `output_text` / `refusal` parts as text, `input_image` parts as media. */
function readItemContent(value: unknown, path: string): { text: string; media: MediaPart[] } {
  if (typeof value === 'string') return { text: value, media: [] };
  let text = '';
  const media: MediaPart[] = [];
  readArray(value, path, 'a string or an array of content items').forEach((raw, index) => {
    const partPath = `${path}[${index}]`;
    const part = readRecord(raw, partPath, 'a content item');
    if (part.type === 'input_text' || part.type === 'output_text' || part.type === 'text') text += readString(part.text, `${partPath}.text`);
    else if (part.type === 'refusal') text += readString(part.refusal, `${partPath}.refusal`);
    else if (part.type === 'input_image') media.push(checkedMedia(mediaFromUrl({ type: 'image', url: readString(part.image_url, `${partPath}.image_url`) }), partPath));
    else throw unexpected(`${partPath}.type`, '"input_text", "output_text", "refusal" or "input_image"', part.type);
  });
  return { text, media };
}

function readTexts(value: unknown, path: string): string[] {
  return readArray(value, path, 'an array of text parts').map((raw, index) => readString(readRecord(raw, `${path}[${index}]`, 'a text part').text, `${path}[${index}].text`));
}

/** An output: text, content items, or `{ content, success }` (older rollouts). */
function readOutput(value: unknown, path: string): { content: string; isError: boolean } {
  if (typeof value === 'string' || Array.isArray(value)) return { content: readOutputText(value, path), isError: false };
  const payload = readRecord(value, path, 'a string, an array of content items or an object with content');
  if (payload.success !== undefined && payload.success !== null && typeof payload.success !== 'boolean') throw unexpected(`${path}.success`, 'a boolean', payload.success);
  return { content: readOutputText(payload.content, `${path}.content`), isError: payload.success === false };
}

/** Output text: a string, or content items (text joined; an image named where it was). */
function readOutputText(value: unknown, path: string): string {
  if (typeof value === 'string') return value;
  return readArray(value, path, 'a string or an array of content items')
    .map((raw, index) => {
      const part = readRecord(raw, `${path}[${index}]`, 'a content item');
      if (part.type === 'input_image') return '[image]';
      if (part.type !== 'input_text' && part.type !== 'output_text' && part.type !== 'text') throw unexpected(`${path}[${index}].type`, '"input_text" or "input_image"', part.type);
      return readString(part.text, `${path}[${index}].text`);
    })
    .join('');
}

/**
 * A Codex CLI rollout's lines to canonical history; a malformed line is an
 * error naming the line and field, thrown or (given `onError`) handed to it
 * and left out. The session's
 * base instructions (`session_meta.payload.base_instructions.text`) open it
 * as a system message; each `response_item` is read in order (developer
 * messages as system messages; reasoning with its summary text, its
 * encrypted content kept as OpenAI provider metadata; function, custom-tool
 * and local-shell calls with their outputs). `event_msg` lines repeat what
 * the items hold, for display, and `turn_context` and `compacted` lines are
 * the harness's own: all left out, as are web searches (hosted, with no
 * output item) and ghost snapshots. The first rollouts, whose lines are bare
 * response items after a metadata line, read the same way.
 */
export function readCodexRollout(lines: readonly TrajectoryLine[], onError?: (error: ContextInputError) => void): CanonicalMessage[] {
  const reader = new ResponseItemReader();
  eachLine(lines, (line) => {
    const entry = readRecord(line.value, 'line', 'a rollout line object');
    if (entry.record_type !== undefined) return; // the first rollouts' state lines
    if (entry.type === undefined && entry.payload === undefined) return; // the first rollouts' metadata line
    const type = readString(entry.type, 'type');
    if (!ROLLOUT_TYPES.has(type)) {
      reader.read(entry, 'line');
      return;
    }
    if (type === 'response_item') reader.read(entry.payload, 'payload');
    else if (type === 'session_meta') {
      const meta = readRecord(entry.payload, 'payload', 'a session metadata object');
      const base = meta.base_instructions;
      if (base === undefined || base === null) return;
      const text = readRecord(base, 'payload.base_instructions', 'an object with text').text;
      if (text !== undefined && text !== null) reader.steps.push({ role: 'system', content: readString(text, 'payload.base_instructions.text') });
    }
  }, onError);
  return reader.steps.build();
}

/** A Codex CLI rollout (JSONL text, or its lines parsed) to canonical history, or one `ContextInputError` naming the line and field. */
export function fromCodexRollout(rollout: unknown): CanonicalMessage[] {
  return readCodexRollout(trajectoryLines(rollout, 'JSONL text or an array of rollout lines'));
}
