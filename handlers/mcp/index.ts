export * from './integrations.js';
export * from './servers.js';
export * from './gateway.js';
