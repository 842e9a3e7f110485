export * from './stores.js';
export * from './files.js';
export * from './search.js';
