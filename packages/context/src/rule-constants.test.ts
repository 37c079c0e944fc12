import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { RECOVERY_MARGIN, RECOVERY_SHARE } from './context-assembler.js';
import { WINDOW_HEADROOM_SHARE } from './context-candidate.js';
import { DEFAULT_PRESSURE_PERCENT } from './context-configuration.js';
import { KEEP_WHOLE_TOOLS } from './context-pipeline.js';
import { EXACT_COUNT_CAP_SHARE } from './counting-policy.js';
import { HISTORY_COMPACTOR_DEFAULTS } from './default-history-compactor.js';
import { SIGNING_METADATA_FIELDS } from './signed-reasoning.js';
import { MASK_PREVIEW_SHARE } from './tool-result-preview.js';

const architecture = readFileSync(new URL('../../../docs/architecture.md', import.meta.url), 'utf8');

/**
 * The constants `docs/architecture.md` names under "where each rule lives",
 * with the values it states: a change to one is a visible decision, made in
 * the code, the docs and this table together.
 */
const RULES: ReadonlyArray<{ readonly name: string; readonly value: unknown; readonly expected: unknown; readonly documented: string }> = [
  { name: 'MASK_PREVIEW_SHARE', value: MASK_PREVIEW_SHARE, expected: 0.5, documented: 'only previews that save at least half' },
  { name: 'maxPreviewShare (compactor default)', value: HISTORY_COMPACTOR_DEFAULTS.maxPreviewShare, expected: MASK_PREVIEW_SHARE, documented: '`maxPreviewShare`' },
  { name: 'WINDOW_HEADROOM_SHARE', value: WINDOW_HEADROOM_SHARE, expected: 0.5, documented: 'a window cut leaves half the budget free (`WINDOW_HEADROOM_SHARE`)' },
  { name: 'DEFAULT_PRESSURE_PERCENT', value: DEFAULT_PRESSURE_PERCENT, expected: 90, documented: 'compaction starts at 90% of the cap (`DEFAULT_PRESSURE_PERCENT`)' },
  { name: 'EXACT_COUNT_CAP_SHARE', value: EXACT_COUNT_CAP_SHARE, expected: 0.85, documented: '85% of the cap (`EXACT_COUNT_CAP_SHARE`)' },
  { name: 'RECOVERY_MARGIN', value: RECOVERY_MARGIN, expected: 0.9, documented: 'less a tenth, `RECOVERY_MARGIN`' },
  { name: 'RECOVERY_SHARE', value: RECOVERY_SHARE, expected: 0.75, documented: 'three quarters, `RECOVERY_SHARE`' },
  { name: 'KEEP_WHOLE_TOOLS', value: KEEP_WHOLE_TOOLS, expected: ['read_skill'], documented: 'never a skill body' },
  {
    name: 'SIGNING_METADATA_FIELDS',
    value: SIGNING_METADATA_FIELDS,
    expected: { anthropic: ['signature', 'redactedData'], bedrock: ['signature', 'redactedData'], openai: ['itemId', 'reasoningEncryptedContent'], azure: ['itemId', 'reasoningEncryptedContent'], google: ['thoughtSignature'], vertex: ['thoughtSignature'] },
    documented: 'Anthropic thinking signature or redacted data, OpenAI Responses reasoning item, Gemini thought signature',
  },
];

for (const rule of RULES) {
  test(`rule constant ${rule.name} is ${JSON.stringify(rule.expected)}, as docs/architecture.md says`, () => {
    assert.deepEqual(rule.value, rule.expected);
    assert.ok(architecture.includes(rule.documented), `docs/architecture.md no longer says: ${rule.documented}`);
  });
}
