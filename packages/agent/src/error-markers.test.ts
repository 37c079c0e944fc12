import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as agentPackage from '@strata/agent';
import * as blackboardPackage from '@strata/blackboard';
import * as contextPackage from '@strata/context';
import * as contextWorkspacePackage from '@strata/context-workspace';
import * as modelPackage from '@strata/model';
import * as storePackage from '@strata/store';
import * as toolsPackage from '@strata/tools';

const PACKAGES: { readonly [name: string]: object } = {
  '@strata/agent': agentPackage,
  '@strata/blackboard': blackboardPackage,
  '@strata/context': contextPackage,
  '@strata/context-workspace': contextWorkspacePackage,
  '@strata/model': modelPackage,
  '@strata/store': storePackage,
  '@strata/tools': toolsPackage,
};

type ErrorClass = (abstract new (...parameters: never[]) => Error) & { isInstance?: (error: unknown) => boolean };

/**
 * One instance of every exported error class. A new error class fails the
 * discovery test below until it has a sample here.
 */
const SAMPLES: readonly Error[] = [
  new contextPackage.ConfigurationError({ setting: 'S', message: 'm' }),
  new contextPackage.ContextBudgetError({ code: 'C', requiredTokens: 2, availableTokens: 1, message: 'm' }),
  new contextPackage.ContextInputError({ code: 'C', culprit: 'c', message: 'm' }),
  new contextPackage.ContextValidationError({ violations: [{ rule: 'r', message: 'm' }] }),
  new contextPackage.FrontMatterError({ code: 'FRONT_MATTER_MISSING', file: 'f', line: 1, reason: 'r' }),
  new contextWorkspacePackage.ContextWorkspaceInputError({ code: 'WORKSPACE_EMPTY_TEXT', field: 'f', message: 'm' }),
  new blackboardPackage.BlackboardConflictError({ expectedRevision: 1, actualRevision: 2 }),
  new blackboardPackage.ContextOrderError({ field: 'f', message: 'm' }),
  new blackboardPackage.ManifestError({ field: 'f', message: 'm' }),
  new blackboardPackage.PresetFormatError({ field: 'f', message: 'm' }),
  new blackboardPackage.SkillContractError({ skill: 's', violations: [{ code: 'C', field: 'f', message: 'm' }] }),
  new blackboardPackage.TagError({ culprit: 'c', message: 'm' }),
  new blackboardPackage.WorkerSkillFormatError({ file: 'f', message: 'm' }),
  new modelPackage.ContextOverflowError({ provider: 'p', message: 'm' }),
  new modelPackage.ModelConfigurationError({ code: 'MODEL_PROVIDER_UNKNOWN', setting: 's', message: 'm' }),
  new modelPackage.ProviderError({ provider: 'p', message: 'm' }),
  new modelPackage.AuthenticationError({ provider: 'p', message: 'm', keyVariable: 'OPENAI_API_KEY' }),
  new modelPackage.RateLimitError({ provider: 'p', message: 'm' }),
  new modelPackage.TransientProviderError({ provider: 'p', message: 'm' }),
  new agentPackage.StepRefusedError({ code: 'AGENT_STEP_TOO_MANY_CALLS', calls: 9, message: 'm' }),
  new toolsPackage.McpConnectionError({ code: 'MCP_CONNECT_FAILED', server: 's', message: 'm' }),
  new toolsPackage.SkillFormatError({ code: 'SKILL_NAME_MISSING', file: 'f', message: 'm' }),
  new toolsPackage.ToolDefinitionError({ code: 'TOOL_SCHEMA_INVALID', toolName: 't', message: 'm' }),
  new storePackage.SessionConflictError({ contextId: 'c', expectedVersion: 1, actualVersion: 2 }),
  new storePackage.StoreAccessError({ code: 'STORE_CLOSED', location: 'l', message: 'm' }),
  new storePackage.StoreInputError({ code: 'C', culprit: 'c', message: 'm' }),
];

/**
 * Exported Error classes that are not `StrataError`s, with the reason. A new
 * one fails the discovery test until it is listed here or made a StrataError.
 */
const PLAIN_ERRORS: { readonly [exportName: string]: string } = {
  // The abort reason of a run's deadline signal, recognised by `RunDeadline.isTimeout`; never thrown to callers.
  '@strata/agent.RunTimeout': 'abort reason',
};

/**
 * Exported abstract bases, with their reason; each is checked through the
 * samples of its subclasses (which carry its marker beside their own).
 */
const ABSTRACT_BASES: { readonly [exportName: string]: string } = {
  '@strata/model.ProviderFailureError': 'the base of every normalized provider failure',
};

/** Every exported class that extends `StrataError` (the base itself excepted), by `package.Name`. */
function exportedErrorClasses(): Map<string, ErrorClass> {
  const classes = new Map<string, ErrorClass>();
  for (const [packageName, exports] of Object.entries(PACKAGES)) {
    for (const [name, value] of Object.entries(exports)) {
      if (typeof value !== 'function' || value === contextPackage.StrataError || !(value.prototype instanceof Error)) continue;
      const exportName = `${packageName}.${name}`;
      if (value.prototype instanceof contextPackage.StrataError) classes.set(exportName, value as ErrorClass);
      else assert.ok(exportName in PLAIN_ERRORS, `${exportName} extends Error but not StrataError`);
    }
  }
  return classes;
}

/** The `strata.error.<Name>` markers an instance carries, without the base marker. */
function markersOf(error: Error): string[] {
  return Object.getOwnPropertySymbols(error)
    .map((symbol) => Symbol.keyFor(symbol))
    .filter((key): key is string => key !== undefined && key.startsWith('strata.error.'));
}

test('every exported error class has a sample, a static isInstance and a marker named after it', () => {
  const classes = exportedErrorClasses();
  assert.equal(classes.size, SAMPLES.length + Object.keys(ABSTRACT_BASES).length, 'every sample is of an exported class');
  for (const [exportName, errorClass] of classes) {
    const sample =
      exportName in ABSTRACT_BASES
        ? SAMPLES.find((error) => error instanceof (errorClass as unknown as new () => Error))
        : SAMPLES.find((error) => error.constructor === errorClass);
    assert.ok(sample !== undefined, `${exportName} has no sample in SAMPLES`);
    assert.equal(typeof errorClass.isInstance, 'function', `${exportName} has no static isInstance`);
    assert.ok(Object.hasOwn(errorClass, 'isInstance'), `${exportName} inherits isInstance instead of checking its own marker`);
    assert.ok(errorClass.isInstance!(sample), `${exportName}.isInstance refuses its own instance`);
    assert.ok(contextPackage.StrataError.isInstance(sample), `${exportName} does not carry the StrataError marker`);
    assert.ok(markersOf(sample).includes(`strata.error.${errorClass.name}`), `${exportName} does not carry the marker strata.error.${errorClass.name}`);
  }
});

test('no two error classes share a marker: isInstance accepts only its own class and its subclasses', () => {
  const classes = [...exportedErrorClasses()];
  const ownMarkers = new Map<string, string>();
  for (const [exportName, errorClass] of classes) {
    const previous = ownMarkers.get(errorClass.name);
    assert.equal(previous, undefined, `${exportName} and ${previous} share the name and marker ${errorClass.name}`);
    ownMarkers.set(errorClass.name, exportName);
  }
  for (const [checkerName, checker] of classes) {
    for (const sample of SAMPLES) {
      const related = sample instanceof (checker as unknown as new () => Error);
      assert.equal(
        checker.isInstance!(sample),
        related,
        `${checkerName}.isInstance(${sample.constructor.name} instance) should be ${related}`,
      );
    }
  }
});
