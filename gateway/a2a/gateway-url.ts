/** Where A2A clients reach an agent integration through gw: JSON-RPC here, the card under it. */
export function agentGatewayUrl(publicUrl: string, slug: string): string {
  return `${publicUrl}/a2a/${encodeURIComponent(slug)}`;
}
