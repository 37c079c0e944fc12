import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assemblePlayWorkerMessages } from './assemble-play-worker-messages.js';
import { assembleWorkerMessages } from './assemble-worker-messages.js';
import { PresetFormatError } from './errors/preset-format-error.js';
import { importSillyTavernPreset } from './import-sillytavern-preset.js';
import { resolveWorkerContract } from './resolve-worker-contract.js';
import { WORKED_NARRATOR_TASK, WORKED_SHARED_CONTEXT, workedEntries, workedSkills } from './testing/worked-example.js';
import { assembleWorkerContextSections } from './worker-context-sections.js';

/**
 * A chat-completion preset in SillyTavern's documented shape: `prompts`
 * (identifier, name, role, content, system_prompt, marker, injection
 * fields) and `prompt_order` lists per character id, plus sampling settings.
 */
function sillyTavernPreset() {
  return {
    temperature: 0.8,
    top_p: 0.95,
    frequency_penalty: 0,
    openai_max_tokens: 600,
    openai_max_context: 16384,
    seed: -1,
    prompts: [
      { identifier: 'main', name: 'Main Prompt', system_prompt: true, role: 'system', content: '你是一位擅长互动小说的作者。', marker: false },
      { identifier: 'nsfw', name: 'Auxiliary Prompt', system_prompt: true, role: 'system', content: '', marker: false },
      { identifier: 'dialogueExamples', name: 'Chat Examples', system_prompt: true, marker: true },
      { identifier: 'jailbreak', name: 'Post-History Instructions', system_prompt: true, role: 'system', content: '保持第二人称。', marker: false },
      { identifier: 'chatHistory', name: 'Chat History', system_prompt: true, marker: true },
      { identifier: 'worldInfoAfter', name: 'World Info (after)', system_prompt: true, marker: true },
      { identifier: 'worldInfoBefore', name: 'World Info (before)', system_prompt: true, marker: true },
      { identifier: 'enhanceDefinitions', name: 'Enhance Definitions', system_prompt: true, role: 'system', content: '补全设定。', marker: false },
      { identifier: 'charDescription', name: 'Char Description', system_prompt: true, marker: true },
      { identifier: 'charPersonality', name: 'Char Personality', system_prompt: true, marker: true },
      { identifier: 'scenario', name: 'Scenario', system_prompt: true, marker: true },
      { identifier: 'personaDescription', name: 'Persona Description', system_prompt: true, marker: true },
      { identifier: 'style-1', name: '文风', system_prompt: false, role: 'system', content: '文风：短句，冷色调。', injection_position: 0, injection_depth: 4 },
      { identifier: 'groupNudge', name: 'Group Nudge', system_prompt: true, marker: true },
      { identifier: 'depth-note', name: '深度注入', system_prompt: false, role: 'system', content: '注意伏笔。', injection_position: 1, injection_depth: 2 },
    ],
    prompt_order: [
      { character_id: 100000, order: [{ identifier: 'main', enabled: true }] },
      {
        character_id: 100001,
        order: [
          { identifier: 'main', enabled: true },
          { identifier: 'style-1', enabled: true },
          { identifier: 'worldInfoBefore', enabled: true },
          { identifier: 'personaDescription', enabled: true },
          { identifier: 'charDescription', enabled: true },
          { identifier: 'charPersonality', enabled: true },
          { identifier: 'scenario', enabled: true },
          { identifier: 'enhanceDefinitions', enabled: false },
          { identifier: 'nsfw', enabled: true },
          { identifier: 'groupNudge', enabled: true },
          { identifier: 'worldInfoAfter', enabled: true },
          { identifier: 'dialogueExamples', enabled: true },
          { identifier: 'chatHistory', enabled: true },
          { identifier: 'depth-note', enabled: true },
          { identifier: 'jailbreak', enabled: true },
          { identifier: 'deletedPrompt', enabled: true },
        ],
      },
    ],
  };
}

test('imports prompts, the global prompt_order, markers as bags and cards, and sampling settings', () => {
  const { preset, diagnostics } = importSillyTavernPreset(sillyTavernPreset(), { id: 'st' });
  assert.deepEqual(preset.generation, { temperature: 0.8, topP: 0.95, frequencyPenalty: 0, maxOutputTokens: 600, contextWindowTokens: 16384 });
  assert.deepEqual(preset.slots, [
    { kind: 'prompt', identifier: 'main', name: 'Main Prompt', role: 'system', content: '你是一位擅长互动小说的作者。' },
    { kind: 'prompt', identifier: 'style-1', name: '文风', role: 'system', content: '文风：短句，冷色调。' },
    { kind: 'bag', identifier: 'worldInfoBefore', bag: 'before' },
    { kind: 'card', identifier: 'personaDescription' },
    { kind: 'card', identifier: 'charDescription' },
    { kind: 'card', identifier: 'charPersonality' },
    { kind: 'card', identifier: 'scenario' },
    { kind: 'prompt', identifier: 'nsfw', name: 'Auxiliary Prompt', role: 'system', content: '' },
    { kind: 'bag', identifier: 'worldInfoAfter', bag: 'after' },
    { kind: 'card', identifier: 'dialogueExamples' },
    { kind: 'bag', identifier: 'chatHistory', bag: 'history' },
    { kind: 'bag', identifier: 'chatHistory', bag: 'turn' },
    { kind: 'prompt', identifier: 'depth-note', name: '深度注入', role: 'system', content: '注意伏笔。' },
    { kind: 'prompt', identifier: 'jailbreak', name: 'Post-History Instructions', role: 'system', content: '保持第二人称。' },
    { kind: 'bag', identifier: 'jailbreak', bag: 'postTurn' },
  ]);
  assert.deepEqual(diagnostics.map((diagnostic) => [diagnostic.code, diagnostic.subject]), [
    ['PRESET_MARKER_UNKNOWN', 'groupNudge'],
    ['PRESET_INJECTION_UNSUPPORTED', 'depth-note'],
    ['PRESET_ORDER_UNKNOWN_IDENTIFIER', 'deletedPrompt'],
  ]);
});

test('an imported preset assembles the narrator with its markers in the right bags', () => {
  const { preset } = importSillyTavernPreset(sillyTavernPreset(), { id: 'st' });
  const contract = resolveWorkerContract({ skill: workedSkills().get('narrator')! });
  const sections = assembleWorkerContextSections({ contract, entries: workedEntries(), sharedContext: WORKED_SHARED_CONTEXT, task: WORKED_NARRATOR_TASK });
  const { form, messages, diagnostics } = assembleWorkerMessages({ sections, preset, cardSegments: { charDescription: 'persona', scenario: 'world' } });
  assert.equal(form, 'bags');
  assert.deepEqual(messages, [
    { role: 'system', content: '你是一位擅长互动小说的作者。' },
    { role: 'system', content: '文风：短句，冷色调。' },
    {
      role: 'system',
      content:
        '体裁：第二人称互动小说。\n不替用户做决定。\n\n你是叙述者。用第二人称写本轮叙述，不超过三句。\n自检：没有替用户行动。\n\n## 事件\n22:05 门铃响了。\n22:06 一个湿透的男人走进来。',
    },
    { role: 'system', content: '## 角色设定\n林晚，二十七岁，雾港夜班药剂师。说话简短，怕黑。' },
    { role: 'system', content: '## 世界\n雾港：常年起雾的海港小城。晚上十点后渡轮停运。' },
    { role: 'system', content: '## 本轮\n男人的左手藏在口袋里。' },
    { role: 'user', content: '我抬头看向门口。' },
    { role: 'assistant', content: '你看见一个湿透的男人站在门口。' },
    { role: 'user', content: '我问他需要什么。' },
    { role: 'assistant', content: '他说要一盒安眠药，声音很低。' },
    { role: 'user', content: '我把药递给他，问他叫什么名字。' },
    { role: 'system', content: '注意伏笔。' },
    { role: 'system', content: '保持第二人称。' },
    { role: 'system', content: '## 定稿摘要\n第一幕：雨夜，陌生男人来药房买安眠药。\n\n## 本步任务\n写本轮叙述。' },
  ]);
  assert.deepEqual(
    diagnostics.filter((diagnostic) => diagnostic.code.startsWith('PRESET_')).map((diagnostic) => [diagnostic.code, diagnostic.subject]),
    [
      ['PRESET_MARKER_UNFILLED', 'personaDescription'],
      ['PRESET_MARKER_UNFILLED', 'charPersonality'],
      ['PRESET_MARKER_UNFILLED', 'dialogueExamples'],
    ],
  );
});

test('without an enabled jailbreak the post-turn follows the chat history; a missing bag is placed and reported', () => {
  const json = sillyTavernPreset();
  json.prompt_order = [
    {
      character_id: 100001,
      order: [
        { identifier: 'main', enabled: true },
        { identifier: 'worldInfoBefore', enabled: true },
        { identifier: 'chatHistory', enabled: true },
        { identifier: 'jailbreak', enabled: false },
      ],
    },
  ];
  const { preset, diagnostics } = importSillyTavernPreset(json, { id: 'lean' });
  assert.deepEqual(diagnostics, []);
  assert.deepEqual(preset.slots.map((slot) => (slot.kind === 'bag' ? slot.bag : slot.identifier)), ['main', 'before', 'history', 'turn', 'postTurn']);
  const played = assemblePlayWorkerMessages({
    preset,
    bags: { before: [{ id: 'world', text: '世界' }], history: [{ role: 'user', content: '你好' }], after: [{ id: 'state', text: '变量' }], turn: ['现在'], postTurn: ['任务'] },
  });
  assert.deepEqual(played.messages, [
    { role: 'system', content: '你是一位擅长互动小说的作者。' },
    { role: 'system', content: '世界' },
    { role: 'system', content: '变量' },
    { role: 'user', content: '你好' },
    { role: 'user', content: '现在' },
    { role: 'system', content: '任务' },
  ]);
  assert.deepEqual(played.diagnostics.map((diagnostic) => [diagnostic.code, diagnostic.subject]), [['PRESET_BAG_UNPLACED', 'after']]);
});

test('falls back to character_id 100000, or the order asked for; rejects malformed presets naming the field', () => {
  const json = sillyTavernPreset();
  json.prompt_order = json.prompt_order.filter((order) => order.character_id === 100000);
  assert.deepEqual(importSillyTavernPreset(json, { id: 'old' }).preset.slots.map((slot) => slot.identifier), ['main']);
  assert.throws(() => importSillyTavernPreset(json, { id: 'x', characterId: 7 }), (error) => PresetFormatError.isInstance(error) && error.field === 'prompt_order');
  assert.throws(() => importSillyTavernPreset({ prompts: {} }, { id: 'x' }), (error) => PresetFormatError.isInstance(error) && error.field === 'prompts');
  assert.throws(
    () => importSillyTavernPreset({ prompts: [{ identifier: 'main', role: 'narrator', content: 'x' }] }, { id: 'x' }),
    (error) => PresetFormatError.isInstance(error) && error.field === 'prompts(main).role',
  );
  assert.throws(
    () => importSillyTavernPreset({ temperature: 'hot', prompts: [] }, { id: 'x' }),
    (error) => PresetFormatError.isInstance(error) && error.field === 'temperature',
  );
});
