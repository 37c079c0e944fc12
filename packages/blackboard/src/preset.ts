import type { WorkerMessage } from './worker-message.js';

/** The bags a worker's sections are split into (see `workerContextToBags`). */
export type PresetBag = 'before' | 'after' | 'history' | 'turn' | 'postTurn';

/** Canonical order of the bags; a preset that has no place for a bag gets it before the next one present. */
export const PRESET_BAG_ORDER: readonly PresetBag[] = Object.freeze(['before', 'after', 'history', 'turn', 'postTurn']);

/**
 * Character-card markers of SillyTavern presets. The blackboard has no card
 * of its own; an assembly may bind a segment id to a marker to place that
 * segment's block there, and reports a card marker left unfilled.
 */
export type CardMarker = 'charDescription' | 'charPersonality' | 'scenario' | 'personaDescription' | 'dialogueExamples';

export const CARD_MARKERS: readonly CardMarker[] = Object.freeze(['charDescription', 'charPersonality', 'scenario', 'personaDescription', 'dialogueExamples']);

export type PresetSlot =
  | { readonly kind: 'prompt'; readonly identifier: string; readonly name?: string; readonly role: WorkerMessage['role']; readonly content: string }
  | { readonly kind: 'bag'; readonly identifier: string; readonly bag: PresetBag }
  | { readonly kind: 'card'; readonly identifier: CardMarker };

/** Generation parameters a preset carries; the model adapter decides which it honours. */
export interface PresetGeneration {
  readonly temperature?: number;
  readonly topP?: number;
  readonly topK?: number;
  readonly frequencyPenalty?: number;
  readonly presencePenalty?: number;
  readonly maxOutputTokens?: number;
  readonly contextWindowTokens?: number;
  readonly seed?: number;
}

/**
 * A preset: generation parameters and ordered slots, prompt entries (main,
 * style fragments, jailbreak) and the holes the bags fill. Orthogonal to
 * skill packages (seed 004 §2).
 */
export interface Preset {
  readonly id: string;
  readonly name?: string;
  readonly generation: PresetGeneration;
  readonly slots: readonly PresetSlot[];
}

/** No prompt entries; the bags in the documented order. */
export const DEFAULT_PRESET: Preset = Object.freeze({
  id: 'default',
  generation: Object.freeze({}),
  slots: Object.freeze(PRESET_BAG_ORDER.map((bag): PresetSlot => Object.freeze({ kind: 'bag', identifier: bag, bag }))),
});

/** The preset's non-empty prompt entries in slot order, as messages: the top of the flat form. */
export function presetPromptMessages(preset: Preset): WorkerMessage[] {
  return preset.slots.flatMap((slot) => (slot.kind === 'prompt' && slot.content.trim().length > 0 ? [{ role: slot.role, content: slot.content }] : []));
}
