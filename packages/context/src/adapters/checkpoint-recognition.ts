import { checkpointMessage } from '../checkpoint-format.js';
import { messageText } from '../message-text.js';
import type { CanonicalMessage } from '../messages.js';

/** The name an original-system checkpoint message carries (`name: "summary"`) and its marker key. */
const CHECKPOINT_NAMES: ReadonlySet<string> = new Set(['summary', 'science_agent_summary_checkpoint']);
export const ORIGINAL_CHECKPOINT_KEY = 'science_agent_summary_checkpoint';
export const ORIGINAL_CHECKPOINT_PREFIX = '[ScienceAgent summary checkpoint]';
/** Where exporters put per-message metadata that may hold the marker key. */
const METADATA_FIELDS = ['metadata', 'additional_kwargs', 'providerOptions', 'providerMetadata', 'experimental_providerMetadata'] as const;

/**
 * A checkpoint written by the original system, recognised on import: a
 * message named `summary` (or `science_agent_summary_checkpoint`), one whose
 * metadata holds a truthy `science_agent_summary_checkpoint`, or one whose
 * text opens with `[ScienceAgent summary checkpoint]` (or a
 * `<science_agent_summary_checkpoint>` tag). It becomes the compactor's own
 * resident checkpoint (hidden, data_only, kept by the window) with its text
 * verbatim. Tool results and assistant messages with calls are never
 * checkpoints. `raw` is the message as it was read, when the format has one.
 */
export function recognizeCheckpoint(raw: unknown, message: CanonicalMessage): CanonicalMessage {
  if (message.role === 'tool' || (message.role === 'assistant' && (message.toolCalls?.length ?? 0) > 0)) return message;
  if (message.role === 'user' && message.checkpoint === true) return message;
  const text = messageText(message);
  if (!isNamedCheckpoint(raw) && !hasMarker(raw) && !opensWithMarker(text)) return message;
  return checkpointMessage(text);
}

function isNamedCheckpoint(raw: unknown): boolean {
  const name = record(raw)?.['name'];
  return typeof name === 'string' && CHECKPOINT_NAMES.has(name);
}

/** The marker key at the top level, in a metadata field, or one provider level below it. */
function hasMarker(raw: unknown): boolean {
  const fields = record(raw);
  if (!fields) return false;
  if (truthy(fields[ORIGINAL_CHECKPOINT_KEY])) return true;
  return METADATA_FIELDS.some((field) => {
    const metadata = record(fields[field]);
    if (!metadata) return false;
    return truthy(metadata[ORIGINAL_CHECKPOINT_KEY]) || Object.values(metadata).some((nested) => truthy(record(nested)?.[ORIGINAL_CHECKPOINT_KEY]));
  });
}

function opensWithMarker(text: string): boolean {
  const start = text.trimStart();
  return start.startsWith(ORIGINAL_CHECKPOINT_PREFIX) || start.startsWith(`<${ORIGINAL_CHECKPOINT_KEY}`);
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

function truthy(value: unknown): boolean {
  return value === true || value === 'true' || value === 1;
}
