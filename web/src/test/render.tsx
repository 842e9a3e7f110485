/** Renders a component into happy-dom's document for a test, signed in as a fake identity. */
import { act, type ReactNode } from 'react';
import { createRoot } from 'react-dom/client';
import type { Api } from '../api/client';
import type { Identity } from '../api/identity';
import { IdentityContext } from '../identity-context';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

export function fakeIdentity(api: Partial<Api>, scopes: string[]): Identity {
  return {
    api: { credential: { kind: 'key', key: 'k' }, fetch: async () => new Response(), get: async () => undefined as never, send: async () => undefined as never, ...api },
    label: 'test key',
    scopes: new Set(scopes),
    workspaceId: null,
    gatewayWorkspaceId: 'ws-1',
    organisationWide: true,
    organisationId: 'o1',
  };
}

export async function render(node: ReactNode, identity?: Identity): Promise<{ container: HTMLElement; unmount: () => void }> {
  const container = document.createElement('div');
  document.body.append(container);
  const root = createRoot(container);
  await act(async () => root.render(identity ? <IdentityContext.Provider value={identity}>{node}</IdentityContext.Provider> : node));
  return {
    container,
    unmount: () => {
      act(() => root.unmount());
      container.remove();
    },
  };
}

/** Types into a React-controlled input or select the way a browser does. */
export async function typeInto(element: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement, value: string): Promise<void> {
  const proto = Object.getPrototypeOf(element) as object;
  const setter = Object.getOwnPropertyDescriptor(proto, 'value')?.set;
  await act(async () => {
    setter?.call(element, value);
    element.dispatchEvent(new Event(element instanceof HTMLSelectElement ? 'change' : 'input', { bubbles: true }));
  });
}

export async function click(element: Element): Promise<void> {
  await act(async () => {
    (element as HTMLElement).click();
  });
}

/** Waits for pending promises (the fake API answers) to settle into the DOM. */
export async function settle(): Promise<void> {
  await act(async () => {
    for (let i = 0; i < 5; i++) await Promise.resolve();
  });
}

export function byLabel<T extends HTMLElement>(container: HTMLElement, text: string): T {
  const label = [...container.querySelectorAll('label')].find((l) => l.textContent === text);
  const control = label && (container.querySelector(`#${CSS.escape(label.htmlFor)}`) as T | null);
  if (!control) throw new Error(`no control labelled ${text}`);
  return control;
}
