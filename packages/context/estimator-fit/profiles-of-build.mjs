// Writes the built profiles back as the JSON fit-profile.py prints, one FAMILY.json per fitted family, so a
// refit of some families regenerates the tables with the others unchanged (the profiles directory is not kept):
// node profiles-of-build.mjs profiles   (after `npx tsc -b`), then fit-profile.py overwrites the families refitted.
import { mkdirSync, writeFileSync } from 'node:fs';
const { FITTED_PROFILES } = await import('../dist/estimator-profiles.generated.js');
const directory = process.argv[2] ?? 'profiles';
mkdirSync(directory, { recursive: true });
for (const [family, profile] of Object.entries(FITTED_PROFILES)) {
  // o200k_harmony refers to o200k's profile, and generate-profiles.py writes it so when it has no file of its own.
  if (family !== 'o200k' && profile === FITTED_PROFILES.o200k) continue;
  writeFileSync(`${directory}/${family}.json`, JSON.stringify(profile));
}
