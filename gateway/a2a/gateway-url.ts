/**
 * Where A2A clients reach an agent integration through gw: JSON-RPC here, the card under it. The
 * trailing slash matters: SDK clients resolve `.well-known/agent-card.json` relative to this URL.
 */
export function agentGatewayUrl(publicUrl: string, slug: string): string {
  return `${publicUrl}/a2a/${encodeURIComponent(slug)}/`;
}
