// The store contract every BlackboardStore passes
export { runBlackboardStoreContract, type BlackboardStoreContractOptions } from './blackboard-store-contract.js';

// The worked example of seed 004 (the narrator worker)
export {
  WORKED_NARRATOR_MESSAGES,
  WORKED_NARRATOR_TASK,
  WORKED_SHARED_CONTEXT,
  workedEntries,
  workedSkills,
} from './worked-example.js';

// The indexed assembly against a reference scan, for every store
export { runIndexedAssemblyProperty, type IndexedAssemblyPropertyOptions } from './indexed-assembly-property.js';
