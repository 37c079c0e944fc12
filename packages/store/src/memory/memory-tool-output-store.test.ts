import { toolOutputStoreContract } from '../testing/tool-output-store-contract.js';
import { createMemoryToolOutputStore } from './memory-tool-output-store.js';

toolOutputStoreContract({ name: 'memory ToolOutputStore', open: createMemoryToolOutputStore, sharesData: false, propertyRuns: 200 });
