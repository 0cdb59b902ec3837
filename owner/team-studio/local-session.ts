import { timingSafeEqual } from 'node:crypto'
import type { Context } from 'hono'
import type { Actor } from '../../server/admin/audit'
import type { SessionMember } from '../../server/admin/sign-in'
import { looksLikeToken, newToken, tokenHash } from '../../server/admin/team'
import type { Sessions } from './team-guard'

const SIGNED_OUT =
  'This waitlist studio needs its token: open the link with #token=… that `npm run waitlist -- studio` ' +
  'printed last (each link opens one session).'

/** The local studio's sessions: the one-use link that opens the next, and the sessions opened. */
export interface LocalSessions extends Sessions {
  /** The link's token now: the CLI prints it; once used, the next one is announced. */
  link(): string
  /** A session's token for the link's token, which is then spent; undefined for any other. */
  open(given: unknown): string | undefined
}

/**
 * The owner's session on the local studio (`waitlist studio`, ADR 112). The CLI prints a link whose
 * token (in the URL's fragment, which no request carries) opens one session, once: the page trades
 * it for the session's token (auth-routes.ts), keeps that in the tab and sends it as a Bearer,
 * never a cookie (cookies ignore ports: every program on 127.0.0.1 would receive one). Each use
 * announces the next link, so the owner sees every session opened. The sessions live in the
 * studio's memory and end with it; only its loopback listener, with its Host checked, knows them.
 * Whoever holds one is the person who started the studio: an owner, named `cli:` and their OS user.
 */
export function localSessions(actor: Actor, announce: (link: string) => void): LocalSessions {
  let link = newToken()
  const open = new Set<string>()
  const owner: SessionMember = { memberId: '', email: actor.name, role: 'owner', sessionId: '' }
  return {
    link: () => link.token,
    open(given) {
      if (!looksLikeToken(given) || !timingSafeEqual(tokenHash(given), link.hash)) return undefined
      const session = newToken()
      open.add(session.hash.toString('base64'))
      link = newToken()
      announce(link.token)
      return session.token
    },
    read: (c: Context) => /^Bearer (\S+)$/.exec(c.req.header('authorization') ?? '')?.[1],
    member: async (token) =>
      looksLikeToken(token) && open.has(tokenHash(token).toString('base64')) ? owner : undefined,
    actor: () => actor,
    signedOut: SIGNED_OUT,
  }
}
