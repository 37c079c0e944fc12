// One gateway in a process of its own, for the tests that run several or kill one:
// `node gateway-process.js <upstream> <store URL> <window>` prints its base URL, then serves until SIGTERM.
import { startGateway } from '../gateway-server.js';

const [upstream, store, window] = process.argv.slice(2);
if (upstream === undefined || store === undefined || window === undefined) throw new TypeError('usage: gateway-process.js <upstream> <store URL> <window>');
const gateway = await startGateway({ upstream, store, windowTokens: Number(window), port: 0 });
process.stdout.write(`${gateway.url}\n`);
process.once('SIGTERM', () => void gateway.close().then(() => process.exit(0)));
