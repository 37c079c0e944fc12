import { PresetFormatError } from './errors/preset-format-error.js';
import { CARD_MARKERS, PRESET_BAG_ORDER, type CardMarker, type Preset, type PresetBag, type PresetGeneration, type PresetSlot } from './preset.js';

const GENERATION_KEYS: readonly (keyof PresetGeneration)[] = [
  'temperature',
  'topP',
  'topK',
  'frequencyPenalty',
  'presencePenalty',
  'maxOutputTokens',
  'contextWindowTokens',
  'seed',
];

/**
 * Reads a preset in Strata's own JSON shape (an object or its text):
 * `{ id, name?, generation?, slots: [{ kind: 'prompt', identifier, role?, content, name? }
 * | { kind: 'bag', bag, identifier? } | { kind: 'card', identifier }] }`.
 * Each bag may appear once. Errors name the field.
 */
export function parsePreset(input: unknown): Preset {
  let value = input;
  if (typeof input === 'string') {
    try {
      value = JSON.parse(input) as unknown;
    } catch (error) {
      throw new PresetFormatError({ field: '(document)', message: `is not JSON: ${(error as Error).message}` });
    }
  }
  if (!isRecord(value)) throw new PresetFormatError({ field: '(document)', message: 'must be an object { id, generation?, slots }' });
  const { id, name, generation, slots } = value;
  if (typeof id !== 'string' || id.length === 0) throw new PresetFormatError({ field: 'id', message: 'must be a non-empty string' });
  if (name !== undefined && typeof name !== 'string') throw new PresetFormatError({ field: 'name', message: 'must be a string' });
  if (!Array.isArray(slots)) throw new PresetFormatError({ field: 'slots', message: 'must be a list of slots' });
  const seenBags = new Set<PresetBag>();
  const parsedSlots = slots.map((slot: unknown, index) => {
    const parsed = parseSlot(slot, `slots[${index}]`);
    if (parsed.kind === 'bag') {
      if (seenBags.has(parsed.bag)) throw new PresetFormatError({ field: `slots[${index}].bag`, message: `"${parsed.bag}" appears twice` });
      seenBags.add(parsed.bag);
    }
    return parsed;
  });
  return { id, ...(name === undefined ? {} : { name }), generation: parseGeneration(generation), slots: parsedSlots };
}

function parseSlot(slot: unknown, field: string): PresetSlot {
  if (!isRecord(slot)) throw new PresetFormatError({ field, message: 'must be an object with a kind' });
  switch (slot['kind']) {
    case 'prompt': {
      const { identifier, role = 'system', content, name } = slot;
      if (typeof identifier !== 'string' || identifier.length === 0) throw new PresetFormatError({ field: `${field}.identifier`, message: 'must be a non-empty string' });
      if (role !== 'system' && role !== 'user' && role !== 'assistant') throw new PresetFormatError({ field: `${field}.role`, message: 'must be system, user or assistant' });
      if (typeof content !== 'string') throw new PresetFormatError({ field: `${field}.content`, message: 'must be a string' });
      if (name !== undefined && typeof name !== 'string') throw new PresetFormatError({ field: `${field}.name`, message: 'must be a string' });
      return { kind: 'prompt', identifier, ...(name === undefined ? {} : { name }), role, content };
    }
    case 'bag': {
      const { bag, identifier = slot['bag'] } = slot;
      if (!(PRESET_BAG_ORDER as readonly unknown[]).includes(bag)) throw new PresetFormatError({ field: `${field}.bag`, message: `must be one of ${PRESET_BAG_ORDER.join(', ')}` });
      if (typeof identifier !== 'string') throw new PresetFormatError({ field: `${field}.identifier`, message: 'must be a string' });
      return { kind: 'bag', identifier, bag: bag as PresetBag };
    }
    case 'card': {
      const { identifier } = slot;
      if (!(CARD_MARKERS as readonly unknown[]).includes(identifier)) throw new PresetFormatError({ field: `${field}.identifier`, message: `must be one of ${CARD_MARKERS.join(', ')}` });
      return { kind: 'card', identifier: identifier as CardMarker };
    }
    default:
      throw new PresetFormatError({ field: `${field}.kind`, message: 'must be prompt, bag or card' });
  }
}

function parseGeneration(value: unknown): PresetGeneration {
  if (value === undefined) return {};
  if (!isRecord(value)) throw new PresetFormatError({ field: 'generation', message: 'must be an object' });
  const generation: Record<string, number> = {};
  for (const [key, number] of Object.entries(value)) {
    if (!(GENERATION_KEYS as readonly string[]).includes(key)) throw new PresetFormatError({ field: `generation.${key}`, message: `is not a generation parameter (${GENERATION_KEYS.join(', ')})` });
    if (typeof number !== 'number' || !Number.isFinite(number)) throw new PresetFormatError({ field: `generation.${key}`, message: 'must be a number' });
    generation[key] = number;
  }
  return generation;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
