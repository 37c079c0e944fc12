// Test helpers of the run service (its tests and the benchmark). Not part of the public API: neither exported nor packed.
export { createEffectTables, createScriptedCatalog, type ScriptedCatalogOptions } from './scripted-catalog.js';
export { ServiceHarness, type ServiceHarnessOptions } from './service-harness.js';
