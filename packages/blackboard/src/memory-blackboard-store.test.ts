import { MemoryBlackboardStore } from './memory-blackboard-store.js';
import { runBlackboardStoreContract } from './testing/blackboard-store-contract.js';

runBlackboardStoreContract({ name: 'MemoryBlackboardStore', create: async ({ now }) => new MemoryBlackboardStore({ now }) });
