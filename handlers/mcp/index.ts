export * from './integrations.js';
export * from './servers.js';
export * from './gateway.js';
export * from './guardrail-mapping.js';
export * from './registry.js';
