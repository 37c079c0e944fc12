import type { BlackboardDiagnostic } from './diagnostics.js';
import { PresetFormatError } from './errors/preset-format-error.js';
import { CARD_MARKERS, type CardMarker, type Preset, type PresetGeneration, type PresetSlot } from './preset.js';
import type { WorkerMessage } from './worker-message.js';

/** `prompt_order` character ids of SillyTavern: 100001 is the global order of current versions, 100000 the older dummy. */
export const SILLYTAVERN_GLOBAL_CHARACTER_IDS: readonly number[] = Object.freeze([100001, 100000]);

export interface ImportSillyTavernPresetOptions {
  /** Id of the imported preset. */
  readonly id: string;
  /** Which `prompt_order` list to use. Default: 100001, else 100000, else the first. */
  readonly characterId?: number;
}

export interface ImportedPreset {
  readonly preset: Preset;
  readonly diagnostics: readonly BlackboardDiagnostic[];
}

/**
 * Imports a SillyTavern chat-completion preset: its `prompts`, the enabled
 * entries of `prompt_order`, and its sampling settings. Markers map onto the
 * bags: `worldInfoBefore` to `before`, `worldInfoAfter` to `after`,
 * `chatHistory` to the history then the current turn, and the post-history
 * instructions (`jailbreak`) to their prompt followed by `postTurn` (without
 * an enabled `jailbreak`, `postTurn` follows the chat history). Card markers
 * become card slots. Unknown markers, order entries naming no prompt, and
 * in-chat injections are reported, never dropped silently.
 */
export function importSillyTavernPreset(json: unknown, options: ImportSillyTavernPresetOptions): ImportedPreset {
  if (!isRecord(json)) throw new PresetFormatError({ field: '(document)', message: 'must be a JSON object' });
  const prompts = json['prompts'];
  if (!Array.isArray(prompts)) throw new PresetFormatError({ field: 'prompts', message: 'must be a list of prompts' });
  const byIdentifier = new Map<string, Record<string, unknown>>();
  prompts.forEach((prompt, index) => {
    if (!isRecord(prompt) || typeof prompt['identifier'] !== 'string' || prompt['identifier'].length === 0) {
      throw new PresetFormatError({ field: `prompts[${index}].identifier`, message: 'must be a non-empty string' });
    }
    byIdentifier.set(prompt['identifier'], prompt);
  });

  const diagnostics: BlackboardDiagnostic[] = [];
  const slots: PresetSlot[] = [];
  let postTurnPlaced = false;
  for (const identifier of enabledOrder(json, byIdentifier, options)) {
    const prompt = byIdentifier.get(identifier);
    if (prompt === undefined) {
      diagnostics.push({ code: 'PRESET_ORDER_UNKNOWN_IDENTIFIER', subject: identifier, message: `prompt_order names ${identifier}, which no prompt defines; skipped` });
      continue;
    }
    if (prompt['injection_position'] === 1) {
      diagnostics.push({
        code: 'PRESET_INJECTION_UNSUPPORTED',
        subject: identifier,
        message: `${identifier} is an in-chat injection (depth ${String(prompt['injection_depth'] ?? '?')}); placed at its prompt_order position instead`,
      });
    }
    switch (identifier) {
      case 'worldInfoBefore':
        slots.push({ kind: 'bag', identifier, bag: 'before' });
        continue;
      case 'worldInfoAfter':
        slots.push({ kind: 'bag', identifier, bag: 'after' });
        continue;
      case 'chatHistory':
        slots.push({ kind: 'bag', identifier, bag: 'history' }, { kind: 'bag', identifier, bag: 'turn' });
        continue;
      case 'jailbreak':
        slots.push(promptSlot(identifier, prompt), { kind: 'bag', identifier, bag: 'postTurn' });
        postTurnPlaced = true;
        continue;
    }
    if ((CARD_MARKERS as readonly string[]).includes(identifier)) {
      slots.push({ kind: 'card', identifier: identifier as CardMarker });
    } else if (prompt['marker'] === true) {
      diagnostics.push({ code: 'PRESET_MARKER_UNKNOWN', subject: identifier, message: `marker ${identifier} is not one this runtime fills; nothing will be sent for it` });
    } else {
      slots.push(promptSlot(identifier, prompt));
    }
  }
  if (!postTurnPlaced) {
    const history = slots.findIndex((slot) => slot.kind === 'bag' && slot.bag === 'turn');
    if (history !== -1) slots.splice(history + 1, 0, { kind: 'bag', identifier: 'postTurn', bag: 'postTurn' });
  }
  const name = typeof json['name'] === 'string' ? json['name'] : undefined;
  return { preset: { id: options.id, ...(name === undefined ? {} : { name }), generation: generationOf(json), slots }, diagnostics };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function enabledOrder(json: Record<string, unknown>, byIdentifier: ReadonlyMap<string, unknown>, options: ImportSillyTavernPresetOptions): string[] {
  const orders = json['prompt_order'];
  if (orders === undefined) return [...byIdentifier.keys()];
  if (!Array.isArray(orders)) throw new PresetFormatError({ field: 'prompt_order', message: 'must be a list of { character_id, order }' });
  const wanted = options.characterId === undefined ? SILLYTAVERN_GLOBAL_CHARACTER_IDS : [options.characterId];
  const chosen =
    wanted.map((id) => orders.find((entry) => isRecord(entry) && entry['character_id'] === id)).find((entry) => entry !== undefined) ??
    (options.characterId === undefined ? orders[0] : undefined);
  if (!isRecord(chosen)) {
    throw new PresetFormatError({ field: 'prompt_order', message: options.characterId === undefined ? 'is empty' : `has no order for character_id ${options.characterId}` });
  }
  const order = chosen['order'];
  if (!Array.isArray(order)) throw new PresetFormatError({ field: `prompt_order(character_id ${String(chosen['character_id'])}).order`, message: 'must be a list' });
  return order.flatMap((entry, index) => {
    if (!isRecord(entry) || typeof entry['identifier'] !== 'string') {
      throw new PresetFormatError({ field: `prompt_order.order[${index}].identifier`, message: 'must be a string' });
    }
    return entry['enabled'] === false ? [] : [entry['identifier']];
  });
}

function promptSlot(identifier: string, prompt: Record<string, unknown>): PresetSlot {
  const role = prompt['role'] ?? 'system';
  if (role !== 'system' && role !== 'user' && role !== 'assistant') {
    throw new PresetFormatError({ field: `prompts(${identifier}).role`, message: `must be system, user or assistant, not ${JSON.stringify(role)}` });
  }
  const content = prompt['content'] ?? '';
  if (typeof content !== 'string') throw new PresetFormatError({ field: `prompts(${identifier}).content`, message: 'must be a string' });
  const name = typeof prompt['name'] === 'string' ? prompt['name'] : undefined;
  return { kind: 'prompt', identifier, ...(name === undefined ? {} : { name }), role: role as WorkerMessage['role'], content };
}

const GENERATION_FIELDS: readonly (readonly [string, keyof PresetGeneration])[] = [
  ['temperature', 'temperature'],
  ['top_p', 'topP'],
  ['top_k', 'topK'],
  ['frequency_penalty', 'frequencyPenalty'],
  ['presence_penalty', 'presencePenalty'],
  ['openai_max_tokens', 'maxOutputTokens'],
  ['openai_max_context', 'contextWindowTokens'],
  ['seed', 'seed'],
];

function generationOf(json: Record<string, unknown>): PresetGeneration {
  const generation: Record<string, number> = {};
  for (const [source, target] of GENERATION_FIELDS) {
    const value = json[source];
    if (value === undefined) continue;
    if (typeof value !== 'number' || !Number.isFinite(value)) throw new PresetFormatError({ field: source, message: 'must be a number' });
    // SillyTavern writes seed -1 for "random".
    if (source === 'seed' && value < 0) continue;
    generation[target] = value;
  }
  return generation;
}
