/**
 * A resolver for the outbound guard (startTestApp's resolveHost) that knows only the names a test
 * lists, so no test queries real DNS. Public answers are never connected to: tests talk to
 * loopback only, and these names are saved, not called.
 */
export const PUBLIC_TEST_ADDRESS = '93.184.216.34';

/** The public example names the admin tests save as custom hosts and endpoints. */
export const EXAMPLE_NAMES: Record<string, string[]> = Object.fromEntries(
  ['a.example.com', 'b.example.com', 'llm.example.com', 'llm-proxy.example.com', 'other-proxy.example.com', 'proxy.example.com', 'login.example.com', 'vault.example.com'].map((name) => [
    name,
    [PUBLIC_TEST_ADDRESS],
  ]),
);

export function stubResolver(answers: Record<string, string[]>): (hostname: string) => Promise<string[]> {
  return async (hostname) => {
    const answer = answers[hostname.toLowerCase()];
    if (!answer) throw Object.assign(new Error(`the test resolver does not know ${hostname}`), { code: 'ENOTFOUND' });
    return answer;
  };
}
