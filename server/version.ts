/** gw's version, as /health and the traces' service.version report it. */
export const GW_VERSION = '2.0.0';
