// What the gateway's tests share: recorded outputs, the loop's size, a local server's base URL.
import type { Server } from 'node:http';
import { readSharedData } from '@strata/testing';

export const STEPS = 30;
export const WINDOW = 24_000;

/** Real recorded text (a SWE-agent trajectory of marshmallow), cut into outputs of 2-9 KB on line ends. */
export function recordedOutputs(): string[] | undefined {
  const text = readSharedData('swe-agent/marshmallow-1867.function_calling_replace_from_source.traj');
  if (text === undefined) return undefined;
  const trajectory = JSON.parse(text) as { history: Array<{ content?: unknown }> };
  const corpus = trajectory.history.map((entry) => (typeof entry.content === 'string' ? entry.content : JSON.stringify(entry.content))).join('\n');
  const outputs: string[] = [];
  let offset = 0;
  for (let step = 0; step < STEPS; step += 1) {
    const size = 2_048 + ((step * 2_731) % 7_169);
    let end = corpus.indexOf('\n', offset + size);
    if (end < 0 || end - offset > 9_216) end = offset + size;
    outputs.push(corpus.slice(offset, end));
    offset = end % (corpus.length - 10_000);
  }
  return outputs;
}

/** Listens on a free port of 127.0.0.1; resolves to the server's `/v1` base URL. */
export async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/v1`;
}
