#!/usr/bin/env node
// The `strata` executable. A committed shim, so npm links it on install even
// before the first build; the command itself is compiled to dist/ by `tsc -b`.
import { existsSync } from 'node:fs';

if (!existsSync(new URL('../dist/main.js', import.meta.url))) {
  console.error('strata: not built yet; run `npm run build` (or `npx tsc -b`) in the repository first');
  process.exit(2);
}
await import('../dist/main.js');
