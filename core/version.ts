/**
 * gw's release (CHANGELOG.md, vMAJOR.MINOR.PATCH; package.json's version), as /health, traces and
 * deployment heartbeats report it. test/foundation/health.test.ts holds the three equal.
 */
export const GW_VERSION = '2.30.0';
