import { createContext, useContext } from 'react'
import { mayAct, type Role } from '../../contract/team-roles'

/**
 * The signed-in member's role, which the page mirrors: it shows only what the role may do. The
 * server decides on every call (owner/team-studio/studio-routes.ts); this only spares a member
 * buttons that would be refused. The local studio (`waitlist studio`) is its owner's: every control.
 */
const RoleContext = createContext<Role>('owner')

export const RoleProvider = RoleContext.Provider

/** Whether the page shows what needs `need`. */
export function useMay(need: Role): boolean {
  return mayAct(useContext(RoleContext), need)
}
