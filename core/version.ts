/** gw's release (CHANGELOG.md, vMAJOR.MINOR.PATCH), as /health, traces and deployment heartbeats report it. */
export const GW_VERSION = '2.22.0';
