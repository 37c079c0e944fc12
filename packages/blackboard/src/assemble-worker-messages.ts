import { assemblePlayWorkerMessages } from './assemble-play-worker-messages.js';
import type { BlackboardDiagnostic } from './diagnostics.js';
import { DEFAULT_PRESET, presetPromptMessages, type CardMarker, type Preset } from './preset.js';
import { flatWorkerMessages, flattenWorkerContext } from './worker-context.js';
import { hasHistory, workerContextToBags } from './worker-context-bags.js';
import type { WorkerContextSections } from './worker-context-sections.js';
import type { WorkerMessage } from './worker-message.js';

export interface AssembleWorkerMessagesOptions {
  readonly sections: WorkerContextSections;
  readonly preset?: Preset;
  readonly cardSegments?: Readonly<Partial<Record<CardMarker, string>>>;
}

export interface WorkerMessages {
  /** `bags` when the sections hold a history chunk, else the flat single pack. */
  readonly form: 'bags' | 'flat';
  readonly messages: readonly WorkerMessage[];
  readonly diagnostics: readonly BlackboardDiagnostic[];
}

/** The messages a worker's model call receives, in the form its sections call for. */
export function assembleWorkerMessages(options: AssembleWorkerMessagesOptions): WorkerMessages {
  const { sections } = options;
  const preset = options.preset ?? DEFAULT_PRESET;
  if (hasHistory(sections)) {
    const play = assemblePlayWorkerMessages({
      bags: workerContextToBags(sections),
      preset,
      cardSegments: options.cardSegments,
    });
    return { form: 'bags', messages: play.messages, diagnostics: [...sections.diagnostics, ...play.diagnostics] };
  }
  const flat = flattenWorkerContext(sections);
  return { form: 'flat', messages: flatWorkerMessages(flat, presetPromptMessages(preset)), diagnostics: sections.diagnostics };
}
