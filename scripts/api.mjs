// The API report of every published package: API Extractor reads the package's built declarations
// (dist/index.d.ts) and writes packages/X/api/X.api.md, which is committed. A change to a public
// surface shows as a change to its report in review. A package exporting a subpath besides "." fails:
// its surface would be outside the report.
// Usage: node scripts/api.mjs            update the reports (npm run api)
//        node scripts/api.mjs --check    fail when a report differs from the declarations (npm run check:api;
//                                        run by scripts/test.mjs). Build first (tsc -b).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Extractor, ExtractorConfig } from '@microsoft/api-extractor';

const check = process.argv.includes('--check');
const root = JSON.parse(readFileSync('package.json', 'utf8'));
const published = root.workspaces.filter((directory) => JSON.parse(readFileSync(join(directory, 'package.json'), 'utf8')).private !== true);

const failures = [];
for (const directory of published) {
  // The report reads dist/index.d.ts only: a further subpath would be a public surface no report records.
  const manifest = JSON.parse(readFileSync(join(directory, 'package.json'), 'utf8'));
  const subpaths = Object.keys(manifest.exports ?? {}).filter((subpath) => subpath !== '.' && subpath !== './package.json');
  if (subpaths.length > 0) failures.push(`${directory}: exports ${subpaths.join(', ')}, which no API report records (the report covers "." only); export it from the package's index or give it a report`);
  const configPath = join(directory, 'api-extractor.json');
  if (!existsSync(configPath)) {
    failures.push(`${directory}: no api-extractor.json (every published package has one)`);
    continue;
  }
  if (!existsSync(join(directory, 'dist', 'index.d.ts'))) {
    failures.push(`${directory}: dist/index.d.ts is missing; run \`npx tsc -b\` first`);
    continue;
  }
  const config = ExtractorConfig.loadFileAndPrepare(configPath);
  const messages = [];
  const result = Extractor.invoke(config, {
    localBuild: !check,
    showVerboseMessages: false,
    messageCallback: (message) => {
      // Warnings and errors are collected and printed once per package, below.
      if (message.logLevel === 'warning' || message.logLevel === 'error') messages.push(message.formatMessageWithoutLocation?.() ?? message.text);
      message.handled = true;
    },
  });
  for (const text of messages) console.error(`${directory}: ${text}`);
  if (check && result.apiReportChanged) failures.push(`${directory}: the public API differs from ${config.reportFilePath.replace(`${process.cwd()}/`, '')}; review the change and run \`npm run api\` to record it`);
  else if (!result.succeeded) failures.push(`${directory}: API Extractor failed (${result.errorCount} errors)`);
  else console.log(`${directory}: ${check ? 'API report up to date' : result.apiReportChanged ? 'API report updated' : 'API report unchanged'}`);
}
if (failures.length > 0) {
  for (const failure of failures) console.error(failure);
  process.exit(1);
}
