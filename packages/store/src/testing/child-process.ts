import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const STORE_FACTORIES = new URL('./child-store-factories.js', import.meta.url).href;
/** The package root, so the child resolves this package's dependencies (better-sqlite3, pg). */
const PACKAGE_ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * A running child process holding a store. `childOpen` is an expression over
 * `store` (the factories of `child-store-factories.ts`); `work` is the body of an async
 * function given `opened` (the store) and `input`, whose return value is
 * sent back as JSON. The child opens the store, says it is ready, waits for
 * `go()`, does the work, closes the store and exits.
 */
export interface StoreChild {
  /** Resolves once the child has opened its store. */
  readonly ready: Promise<void>;
  go(): void;
  /** The work's result; rejects when the child fails or is killed. */
  readonly result: Promise<unknown>;
}

export function startStoreChild(options: { readonly childOpen: string; readonly work: string; readonly input: unknown; readonly exitWithoutClose?: boolean }): StoreChild {
  const directory = mkdtempSync(join(tmpdir(), 'strata-store-child-'));
  const inputPath = join(directory, 'input.json');
  writeFileSync(inputPath, JSON.stringify(options.input));
  const source = `
import * as store from ${JSON.stringify(STORE_FACTORIES)};
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
const input = JSON.parse(readFileSync(process.argv[1], 'utf8'));
const opened = await (${options.childOpen});
process.stdout.write('ready\\n');
const lines = createInterface({ input: process.stdin });
for await (const line of lines) { if (line === 'go') break; }
const result = await (async (opened, input) => { ${options.work} })(opened, input);
${options.exitWithoutClose === true ? '' : 'await opened.close();'}
process.stdout.write(JSON.stringify({ result: result ?? null }) + '\\n');
process.exit(0);
`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', source, inputPath], { cwd: PACKAGE_ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const lines = createInterface({ input: child.stdout });
  let resolveReady!: () => void;
  let rejectReady!: (error: Error) => void;
  const ready = new Promise<void>((resolve, reject) => {
    resolveReady = resolve;
    rejectReady = reject;
  });
  const result = new Promise<unknown>((resolve, reject) => {
    let output: unknown;
    let sawOutput = false;
    lines.on('line', (line) => {
      if (line === 'ready') resolveReady();
      else if (line.startsWith('{')) {
        output = (JSON.parse(line) as { result: unknown }).result;
        sawOutput = true;
      }
    });
    child.on('close', (code, signal) => {
      rmSync(directory, { recursive: true, force: true });
      if (code === 0 && sawOutput) resolve(output);
      else {
        const error = new Error(`store child exited with ${signal ?? code}: ${stderr.trim()}`);
        rejectReady(error);
        reject(error);
      }
    });
  });
  // Callers may only await `ready`; keep an early failure from going unhandled.
  result.catch(() => undefined);
  ready.catch(() => undefined);
  return {
    ready,
    go: () => child.stdin.end('go\n'),
    result,
  };
}

/** Starts a child, lets it work at once, and returns its result. */
export async function runStoreChild(options: { readonly childOpen: string; readonly work: string; readonly input: unknown }): Promise<unknown> {
  const child = startStoreChild(options);
  await child.ready;
  child.go();
  return child.result;
}
