export { createGatewayApp, CONTEXT_HEADER, MAX_READ_ROUNDS, SAVED_TOKENS_HEADER, SESSION_HEADER, UPSTREAM_CALLS_HEADER, type GatewayOptions } from './gateway-app.js';
export { DEFAULT_GATEWAY_STORE, startGateway, type RunningGateway, type StartGatewayOptions } from './gateway-server.js';
