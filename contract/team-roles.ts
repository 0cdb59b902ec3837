/**
 * The team's roles, each allowed what the one before it is and more (ADR 099):
 *   viewer: sees the list, entries, funnel, sources and the record; changes nothing; cannot export;
 *   member: also chooses and invites (filters, tags, notes, invite selected and next N, test sends,
 *     resuming a paused send);
 *   owner: also runs the team (add, role, remove), exports, and removes entries.
 */
export const ROLES = ['viewer', 'member', 'owner'] as const
export type Role = (typeof ROLES)[number]

export const isRole = (value: unknown): value is Role => ROLES.includes(value as Role)

/** Whether `role` may do what needs `need`. */
export const mayAct = (role: Role, need: Role): boolean => ROLES.indexOf(role) >= ROLES.indexOf(need)
