import { sessionStoreContract } from '../testing/session-store-contract.js';
import { createMemorySessionStore } from './memory-session-store.js';

sessionStoreContract({ name: 'memory SessionStore', open: createMemorySessionStore, sharesData: false });
