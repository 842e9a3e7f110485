import { createContext, useContext } from 'react';
import type { Identity } from './api/identity';

export const IdentityContext = createContext<Identity | undefined>(undefined);

/** The signed-in caller; pages render only inside a signed-in shell. */
export function useIdentity(): Identity {
  const identity = useContext(IdentityContext);
  if (!identity) throw new Error('useIdentity outside the signed-in console');
  return identity;
}
