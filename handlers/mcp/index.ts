export * from './integrations.js';
export * from './servers.js';
