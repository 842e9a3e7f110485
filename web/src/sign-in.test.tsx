import { afterEach, describe, expect, test, vi } from 'vitest';
import { SignIn } from './sign-in';
import { render, settle } from './test/render';

let cleanup: (() => void) | undefined;
afterEach(() => {
  cleanup?.();
  vi.unstubAllGlobals();
});

async function signInPage(answer: () => Promise<Response>) {
  const asked: string[] = [];
  vi.stubGlobal('fetch', (url: string) => (asked.push(url), answer()));
  const view = await render(<SignIn onSignedIn={() => undefined} />);
  cleanup = view.unmount;
  await settle();
  await settle();
  return { view, asked, sso: () => [...view.container.querySelectorAll('a')].find((a) => a.textContent === 'Sign in with SSO') };
}

describe('the sign-in page', () => {
  test('asks gw once whether SSO is on, and offers SSO only then', async () => {
    const on = await signInPage(async () => Response.json({ enabled: true }));
    expect(on.asked).toEqual(['/v1/auth/sso/status']);
    expect(on.sso()?.getAttribute('href')).toMatch(/^\/v1\/auth\/sso\/login\?return_to=/);
    cleanup?.();
    const off = await signInPage(async () => Response.json({ enabled: false }));
    expect(off.sso()).toBeUndefined();
  });

  test('gw not answering reads as no SSO', async () => {
    const down = await signInPage(async () => Promise.reject(new TypeError('network')));
    expect(down.sso()).toBeUndefined();
  });
});
