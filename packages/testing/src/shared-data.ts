import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * Where the project's shared real data lives: `$STRATA_SHARED_DIR`, else
 * `../shared` beside the repository root (tests run from the root).
 * Undefined when absent, so a suite can skip with a notice.
 */
export function sharedDirectory(): string | undefined {
  // Resolved against the working directory once, so a relative $STRATA_SHARED_DIR names the same place for a read and an import.
  const directory = resolve(process.cwd(), process.env.STRATA_SHARED_DIR ?? '../shared');
  return existsSync(join(directory, 'data')) ? directory : undefined;
}

/** Reads `../shared/data/<relativePath>` as text, or undefined (with a printed notice) when absent. */
export function readSharedData(relativePath: string): string | undefined {
  const directory = sharedDirectory();
  if (!directory) {
    console.log(`# notice: ../shared is absent; skipping what needs shared/data/${relativePath}`);
    return undefined;
  }
  return readFileSync(join(directory, 'data', relativePath), 'utf8');
}

export interface ProviderRuleViolation {
  readonly index: number;
  readonly rule: string;
  readonly detail: string;
}

/** The independent oracle of what OpenAI and Anthropic reject (`../shared/tools/provider-rules.mjs`). */
export interface ProviderRules {
  violations(messages: unknown[], provider: 'openai' | 'anthropic'): ProviderRuleViolation[];
}

/** Loads the independent provider-rules oracle, or undefined when ../shared is absent. */
export async function loadProviderRules(): Promise<ProviderRules | undefined> {
  const directory = sharedDirectory();
  if (!directory) {
    console.log('# notice: ../shared is absent; skipping provider-rules oracle checks');
    return undefined;
  }
  return import(join(directory, 'tools', 'provider-rules.mjs'));
}
