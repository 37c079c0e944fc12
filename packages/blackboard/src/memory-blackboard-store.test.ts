import { MemoryBlackboardStore } from './memory-blackboard-store.js';
import { runBlackboardStoreContract } from './testing/blackboard-store-contract.js';

runBlackboardStoreContract({ name: 'MemoryBlackboardStore', create: async ({ now }) => new MemoryBlackboardStore({ now }) });
import { runIndexedAssemblyProperty } from './testing/indexed-assembly-property.js';

runIndexedAssemblyProperty({ name: 'MemoryBlackboardStore', create: async () => new MemoryBlackboardStore() });
