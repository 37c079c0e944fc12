export { createGatewayApp, CONTEXT_HEADER, MAX_READ_ROUNDS, PASS_THROUGH_HEADER, SAVED_TOKENS_HEADER, SESSION_HEADER, UPSTREAM_CALLS_HEADER, type GatewayOptions, type GatewayWindow } from './gateway-app.js';
export { DEFAULT_GATEWAY_STORE, startGateway, type RunningGateway, type StartGatewayOptions } from './gateway-server.js';
export { guardRequests, REQUEST_LIMIT_DEFAULTS, type GatewayHandler, TOKEN_HEADER, VIEW_TOKEN_COOKIE, type RequestGuardOptions } from './request-guard.js';
export { createWindowResolver, type WindowResolverOptions } from './window-resolver.js';
export type { GatewayEvent, GatewayRequestTelemetry, GatewayStopReason, GatewayTelemetry, GatewayTelemetryRequest } from './gateway-telemetry.js';
export { ANTHROPIC_VERSION, DEFAULT_ANTHROPIC_MAX_TOKENS, DROPPED_FIELDS_HEADER, UPSTREAM_ERROR_FIELD, type GatewayProvider } from './provider-wire.js';
