// LLaMA-Factory's own dataset formats beyond ShareGPT: the v1 messages form
// (content parts `{ type, value }`, as in `reason_tool_use_demo_50.jsonl`),
// its preference form (`chosen_messages` / `rejected_messages`) and Alpaca
// records (`instruction` / `input` / `output`, or `chosen` / `rejected`).
import type { CanonicalMessage, JsonValue, MediaPart, ReasoningPart, ToolCall } from '../messages.js';
import { checkedMedia, isRecord, readArray, readJson, readOptionalString, readRecord, readString, readToolArguments, invalid, unexpected } from './adapter-input.js';
import { mediaFromUrl } from './media.js';
import { StepHistory } from './trajectories-steps.js';

/** Whether a record is in LLaMA-Factory's v1 form: `chosen_messages`, or messages whose content parts carry `value`. */
export function isLlamaFactoryRecord(record: unknown): boolean {
  if (!isRecord(record)) return false;
  if (Array.isArray(record.chosen_messages)) return true;
  return Array.isArray(record.messages) && record.messages.some((message) => isRecord(message) && Array.isArray(message.content) && message.content.some((part) => isRecord(part) && part.value !== undefined && part.text === undefined));
}

/** Whether a record is an Alpaca instruction record (SFT or preference). */
export function isAlpacaRecord(record: unknown): boolean {
  return isRecord(record) && typeof record.instruction === 'string' && (record.output !== undefined || record.chosen !== undefined);
}

/**
 * A LLaMA-Factory v1 record to canonical history, or one
 * `ContextInputError` naming the message and field. Content parts: `text`,
 * `reasoning` (kept as reasoning), `tool_call` (JSON text
 * `{ name, arguments }`, a call with id `call_<message>_<part>`) and
 * `image_url` (media); `video_url` and `audio_url`, which no provider
 * format here carries, become a text note naming them. A tool message
 * answers the open calls before it in order; when one tool message answers
 * several calls at once, as a JSON array of one entry per call (each with
 * its `content`), each call gets its entry. A preference record
 * (`chosen_messages`) replays its chosen answer; the rejected one is not
 * part of the run.
 */
export function fromLlamaFactoryRecord(record: unknown): CanonicalMessage[] {
  const fields = readRecord(record, 'record', 'an object with messages or chosen_messages');
  const key = fields.chosen_messages !== undefined ? 'chosen_messages' : 'messages';
  const messages = readArray(fields[key], key, 'an array of messages');
  const steps = new StepHistory();
  let open: ToolCall[] = [];
  messages.forEach((raw, index) => {
    const path = `${key}[${index}]`;
    const message = readRecord(raw, path, 'a message object');
    const role = message.role;
    if (role !== 'system' && role !== 'user' && role !== 'assistant' && role !== 'tool') throw unexpected(`${path}.role`, '"system", "user", "assistant" or "tool"', role);
    const parts = readParts(message.content, `${path}.content`, index);
    if (role === 'assistant') {
      const step = steps.step();
      if (parts.text !== '') step.text.push(parts.text);
      step.reasoning.push(...parts.reasoning);
      for (const call of parts.calls) steps.call(step, call);
      open = [...parts.calls];
      return;
    }
    if (parts.calls.length > 0 || parts.reasoning.length > 0) throw invalid(`${path}.content`, `${role} content of text and media parts`, 'a tool_call or reasoning part');
    if (role === 'tool') {
      const answers = open.length > 1 ? splitResults(parts.text, open.length) : undefined;
      for (const content of answers ?? [parts.text]) {
        const call = open.shift();
        steps.result({ role: 'tool', toolCallId: call?.id ?? `orphan_${index}`, toolName: call?.name ?? 'unknown', content });
      }
      return;
    }
    open = [];
    if (role === 'system') steps.push({ role: 'system', content: parts.text });
    else steps.push(parts.media.length > 0 ? { role: 'user', content: parts.text, media: parts.media } : { role: 'user', content: parts.text });
  });
  return steps.build();
}

interface Parts {
  text: string;
  readonly reasoning: ReasoningPart[];
  readonly calls: ToolCall[];
  readonly media: MediaPart[];
}

function readParts(value: unknown, path: string, messageIndex: number): Parts {
  const parts: Parts = { text: '', reasoning: [], calls: [], media: [] };
  if (typeof value === 'string') return { ...parts, text: value };
  readArray(value, path, 'a string or an array of content parts').forEach((raw, index) => {
    const partPath = `${path}[${index}]`;
    const part = readRecord(raw, partPath, 'a content part object');
    const text = readString(part.value, `${partPath}.value`);
    switch (part.type) {
      case 'text':
        parts.text += text;
        break;
      case 'reasoning':
        parts.reasoning.push({ text });
        break;
      case 'tool_call': {
        const call = readToolArguments(text, `${partPath}.value`);
        if (!isRecord(call) || typeof call.name !== 'string' || call.name === '') throw invalid(`${partPath}.value`, 'JSON text of an object with a string name', typeof call === 'string' ? 'text that is not JSON' : 'another value');
        const args = call.arguments;
        const input: JsonValue = typeof args === 'string' ? readToolArguments(args, `${partPath}.value.arguments`) : args === undefined ? {} : readJson(args, `${partPath}.value.arguments`);
        parts.calls.push({ id: `call_${messageIndex}_${index}`, name: call.name, input });
        break;
      }
      case 'image_url':
        parts.media.push(checkedMedia(mediaFromUrl({ type: 'image', url: text }), partPath));
        break;
      case 'video_url':
      case 'audio_url':
        parts.text += `[${part.type.slice(0, 5)}: ${text}]`;
        break;
      default:
        throw unexpected(`${partPath}.type`, '"text", "reasoning", "tool_call", "image_url", "video_url" or "audio_url"', part.type);
    }
  });
  return parts;
}

/** One tool message's text as `count` results: a JSON array of `count` entries with `content`, else undefined. */
function splitResults(text: string, count: number): string[] | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!Array.isArray(parsed) || parsed.length !== count || !parsed.every((entry) => isRecord(entry) && entry.content !== undefined)) return undefined;
  return parsed.map((entry) => {
    const content = (entry as Record<string, unknown>).content;
    return typeof content === 'string' ? content : JSON.stringify(content);
  });
}

/**
 * An Alpaca record to canonical history: `system` and each `history` pair
 * (`[instruction, answer]`) first, then the instruction (with its `input`
 * after a blank line) as the user turn and `output` as the answer; a
 * preference record (`chosen` / `rejected`) answers with `chosen`.
 */
export function fromAlpacaRecord(record: unknown): CanonicalMessage[] {
  const fields = readRecord(record, 'record', 'an object with instruction and output');
  const history: CanonicalMessage[] = [];
  const system = readOptionalString(fields.system, 'system');
  if (system) history.push({ role: 'system', content: system });
  if (fields.history !== undefined && fields.history !== null) {
    readArray(fields.history, 'history', 'an array of [instruction, answer] pairs').forEach((raw, index) => {
      const pair = readArray(raw, `history[${index}]`, 'an [instruction, answer] pair');
      if (pair.length !== 2) throw invalid(`history[${index}]`, 'an [instruction, answer] pair', `${pair.length} items`);
      history.push({ role: 'user', content: readString(pair[0], `history[${index}][0]`) }, { role: 'assistant', content: readString(pair[1], `history[${index}][1]`) });
    });
  }
  const instruction = readString(fields.instruction, 'instruction');
  const input = readOptionalString(fields.input ?? undefined, 'input');
  history.push({ role: 'user', content: input ? `${instruction}\n\n${input}` : instruction });
  const answerKey = fields.output !== undefined ? 'output' : 'chosen';
  history.push({ role: 'assistant', content: readString(fields[answerKey], answerKey) });
  return history;
}
