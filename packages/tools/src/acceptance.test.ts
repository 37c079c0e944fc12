// Issue 4's acceptance items for the tool layer, through the public API only,
// wired the way the agent loop will wire them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PutToolOutput, StoredToolOutput, ToolCall, ToolOutputRef, ToolOutputStore, ToolResultMessage } from '@strata/context';
import {
  type ReadToolOutputArguments,
  SkillFormatError,
  ToolDefinitionError,
  ToolRegistry,
  connectMcpServer,
  loadSkills,
  nextArgumentsOf,
  registerStandardTools,
  skillCatalogSection,
  storeToolResult,
  toolErrorCodeOf,
} from './index.js';

class MemoryStore implements ToolOutputStore {
  readonly #outputs = new Map<string, StoredToolOutput>();
  async put(output: PutToolOutput): Promise<ToolOutputRef> {
    const ref = { id: `ref-${this.#outputs.size + 1}`, chars: output.body.length, lines: output.body.split('\n').length, bytes: Buffer.byteLength(output.body) };
    this.#outputs.set(ref.id, { ...output, ref, createdAt: 'now' });
    return ref;
  }
  async get(refId: string): Promise<StoredToolOutput | undefined> {
    return this.#outputs.get(refId);
  }
  async close(): Promise<void> {}
}

test('one run: MCP tools deferred then discovered, skills disclosed progressively, every result stored with its ref', async () => {
  const skillsDirectory = await mkdtemp(join(tmpdir(), 'strata-acceptance-'));
  await mkdir(join(skillsDirectory, 'triage'));
  await writeFile(join(skillsDirectory, 'triage', 'SKILL.md'), '---\nname: triage\ndescription: Triage failing builds.\n---\nStep 1: read the log tail. BODY-MARKER\n');
  const connection = await connectMcpServer({
    server: { name: 'fixture', transport: { type: 'stdio', command: process.execPath, args: [fileURLToPath(new URL('./mcp/testing/fixture-server.js', import.meta.url))] } },
  });
  const store = new MemoryStore();
  try {
    const catalog = await loadSkills(skillsDirectory);
    const registry = new ToolRegistry();
    registry.registerAll(connection.registrations);
    registerStandardTools({ registry, outputStore: store, skills: catalog });

    const system = skillCatalogSection(catalog);
    assert.ok(system !== undefined && system.content.includes('- triage: Triage failing builds.'));
    assert.ok(!system.content.includes('BODY-MARKER'));
    assert.deepEqual(registry.visibleTools().map((tool) => tool.name), ['read_skill', 'read_tool_output', 'search_tools']);

    const history: ToolResultMessage[] = [];
    const turn = async (calls: readonly ToolCall[]): Promise<readonly ToolResultMessage[]> => {
      const outcomes = await registry.executeBatch(calls, { contextId: 'run-1' });
      const messages = await Promise.all(calls.map((call, index) => storeToolResult({ store, contextId: 'run-1', call, outcome: outcomes[index]! })));
      history.push(...messages);
      return messages;
    };

    const [early] = await turn([{ id: 't1', name: 'mcp__fixture__echo', input: { text: 'x' } }]);
    assert.equal(early?.isError, true);
    assert.match(early!.content, /TOOL_NOT_DISCOVERED/);
    await turn([{ id: 't2', name: 'search_tools', input: { query: 'echo' } }]);
    assert.ok(registry.visibleTools().some((tool) => tool.name === 'mcp__fixture__echo'));
    const [echoed, skill] = await turn([
      { id: 't3', name: 'mcp__fixture__echo', input: { text: 'line one\nline two' } },
      { id: 't4', name: 'read_skill', input: { name: 'triage' } },
    ]);
    assert.equal(echoed?.content, 'line one\nline two');
    assert.match(skill!.content, /^<skill name="triage" revision="sha256:[0-9a-f]{64}">\nStep 1: read the log tail\. BODY-MARKER\n<\/skill>$/);

    // Bad input from the model never breaks the run.
    const [bad] = await turn([{ id: 't5', name: 'mcp__fixture__echo', input: { text: 42 } }]);
    assert.match(bad!.content, /TOOL_ARGUMENTS_INVALID/);

    assert.ok(history.every((message) => message.outputRef !== undefined));
    // Every stored result is readable back through read_tool_output, exactly.
    for (const message of history) {
      let request: ReadToolOutputArguments | undefined = { ref: message.outputRef!.id };
      let text = '';
      while (request !== undefined) {
        const outcome = await registry.execute({ id: `read-${message.toolCallId}-${text.length}`, name: 'read_tool_output', input: request as never }, { contextId: 'run-1' });
        assert.equal(toolErrorCodeOf(outcome), undefined, outcome.content);
        text += outcome.content.slice(outcome.content.indexOf('\n') + 1);
        request = nextArgumentsOf(outcome.content);
      }
      assert.equal(text, message.content);
    }
  } finally {
    await connection.close();
    await rm(skillsDirectory, { recursive: true, force: true });
  }
});

test('bad definitions fail registration or loading with errors that name the culprit', async () => {
  const registry = new ToolRegistry();
  assert.throws(
    () => registry.register({ name: 'lookup', parameters: { type: 'object', properties: { ids: { type: 'array', items: { type: 'integer', minimum: 'zero' } } } }, execute: () => ({ content: '' }) }),
    (error: unknown) => ToolDefinitionError.isInstance(error) && error.toolName === 'lookup' && error.schemaPath === '/properties/ids/items/minimum',
  );
  const directory = await mkdtemp(join(tmpdir(), 'strata-bad-skill-'));
  try {
    await mkdir(join(directory, 'plain'));
    await writeFile(join(directory, 'plain', 'SKILL.md'), '# No frontmatter here\n');
    await assert.rejects(loadSkills(directory), (error: unknown) => SkillFormatError.isInstance(error) && error.code === 'SKILL_FRONTMATTER_MISSING' && error.line === 1 && error.file.endsWith(join('plain', 'SKILL.md')));
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
});
