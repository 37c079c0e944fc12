// What a command reads and writes, so tests run commands in-process.

export interface CliIo {
  readonly stdout: { write(text: string): unknown; readonly isTTY?: boolean };
  readonly stderr: { write(text: string): unknown; readonly isTTY?: boolean };
  /** Read at the edge only: the command passes what it needs on as options. */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  /** Ctrl-C and the like; a command that runs long listens to it. */
  readonly signal?: AbortSignal;
}

export function processIo(signal?: AbortSignal): CliIo {
  return { stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd(), signal };
}

/** A progress bar on a terminal; nothing on a pipe. */
export function progressBar(stream: CliIo['stderr'], total: number): { tick(label: string): void; done(): void } {
  if (!stream.isTTY || total === 0) return { tick: () => undefined, done: () => undefined };
  let count = 0;
  const width = 30;
  return {
    tick(label) {
      count += 1;
      const filled = Math.round((count / total) * width);
      stream.write(`\r[${'#'.repeat(filled)}${' '.repeat(width - filled)}] ${count}/${total} ${label.slice(0, 40).padEnd(40)}`);
    },
    done: () => stream.write(`\r${' '.repeat(width + 60)}\r`),
  };
}
