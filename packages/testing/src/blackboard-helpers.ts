// The blackboard's test-only helpers, for the other workspaces' tests: the
// store contract every BlackboardStore passes, the indexed assembly against a
// reference scan, and the worked example of seed 004 (the narrator worker).
// They live beside the blackboard's code (they read its internals) under
// src/testing/, which its tarball leaves out and its manifest does not
// export; this private package reaches them by path, so no published package
// has a testing subpath.
export { runBlackboardStoreContract, type BlackboardStoreContractOptions } from '../../blackboard/dist/testing/blackboard-store-contract.js';
export { runIndexedAssemblyProperty, type IndexedAssemblyPropertyOptions } from '../../blackboard/dist/testing/indexed-assembly-property.js';
export { WORKED_NARRATOR_MESSAGES, WORKED_NARRATOR_TASK, WORKED_SHARED_CONTEXT, workedEntries, workedSkills } from '../../blackboard/dist/testing/worked-example.js';
