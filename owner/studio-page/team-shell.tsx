import { useCallback, useEffect, useState } from 'react'
import { siteConfig } from '../../contract/site-config'
import { ActivityPage } from './activity-page'
import { STUDIO_ROOT } from './api'
import { EnrolPage } from './enrol-page'
import { PasskeysPage } from './passkeys-page'
import { RoleProvider, useMay } from './role'
import { SettingsPage } from './settings-page'
import { SignInPage } from './sign-in-page'
import { StudioPage } from './studio-page'
import { FOCUS } from './styles'
import { fetchMe, type Me, signOut } from './team-api'
import { TeamPage } from './team-page'

/** The studio's pages by path (owner/team-studio/auth-routes.ts serves each): the team's under /studio. */
const PAGES = {
  '/activity': 'Activity',
  '/settings': 'Settings',
  '/passkeys': 'Your passkeys',
  '/team': 'Team',
} as const
type Path = '/' | keyof typeof PAGES
/** The team studio, under /studio on the site; the local studio (`waitlist studio`) is at the root. */
const TEAM = STUDIO_ROOT !== ''
/** The local studio's one owner has no passkey, no other session and no team to run. */
const LOCAL_PAGES: readonly string[] = ['/activity', '/settings']

/**
 * The studio: on the team studio at /studio, sign-in and enrolment for whoever is not signed in;
 * for a member, or the local studio's owner, the studio (only what their role may do), the
 * Activity record and, from members up, Settings; on the team studio, their passkeys, and for
 * owners the team.
 */
export function TeamShell() {
  const path = window.location.pathname.slice(STUDIO_ROOT.length)
  if (TEAM && path === '/sign-in') return <SignInPage />
  if (TEAM && path === '/enrol') return <EnrolPage />
  const known = Object.hasOwn(PAGES, path) && (TEAM || LOCAL_PAGES.includes(path))
  return <SignedIn path={(known ? path : '/') as Path} />
}

function SignedIn({ path }: { path: Path }) {
  const [me, setMe] = useState<Me>()
  const [error, setError] = useState('')
  const fail = useCallback((reason: unknown) => setError(String((reason as Error).message ?? reason)), [])
  useEffect(() => {
    fetchMe().then(setMe, fail)
  }, [fail])
  if (!me)
    return error ? (
      <p role="alert" className="m-6 rounded border border-danger bg-danger-soft p-3 text-danger">
        {error}
      </p>
    ) : (
      <p className="p-6">Loading…</p>
    )
  return (
    <RoleProvider value={me.role}>
      <TeamNav me={me} path={path} />
      {path === '/' ? (
        <StudioPage />
      ) : (
        <main className="mx-auto max-w-4xl space-y-6 p-6">
          {error && (
            <p role="alert" className="rounded border border-danger bg-danger-soft p-3 text-danger">
              {error}
            </p>
          )}
          {path === '/activity' && <ActivityPage onFail={fail} />}
          {path === '/settings' && <SettingsPage />}
          {path === '/passkeys' && <PasskeysPage onFail={fail} />}
          {path === '/team' && <TeamPage onFail={fail} />}
        </main>
      )}
    </RoleProvider>
  )
}

function TeamNav({ me, path }: { me: Me; path: Path }) {
  const mayRunTeam = useMay('owner')
  const mayInvite = useMay('member')
  const links: [Path, string][] = [
    ['/', 'Studio'],
    ['/activity', PAGES['/activity']],
  ]
  // What Settings shows is the invite panel's (a member's and an owner's); the server asks the same.
  if (mayInvite) links.push(['/settings', PAGES['/settings']])
  if (TEAM) links.push(['/passkeys', PAGES['/passkeys']])
  if (TEAM && mayRunTeam) links.push(['/team', PAGES['/team']])
  return (
    <header className="border-b border-line bg-panel">
      <div className="mx-auto flex max-w-4xl flex-wrap items-center justify-between gap-3 px-6 py-3">
        <nav aria-label={`${siteConfig.labName} studio`} className="flex flex-wrap gap-4">
          {links.map(([to, label]) => (
            <a
              key={to}
              href={`${STUDIO_ROOT}${to}`}
              aria-current={to === path ? 'page' : undefined}
              className={`underline-offset-4 aria-[current=page]:font-semibold aria-[current=page]:underline ${FOCUS}`}
            >
              {label}
            </a>
          ))}
        </nav>
        <div className="flex items-center gap-3 text-sm">
          <span className="text-soft">
            {me.email} · {me.role}
          </span>
          {TEAM && (
            <button
              type="button"
              onClick={() => signOut().finally(() => window.location.assign(`${STUDIO_ROOT}/sign-in`))}
              className={`rounded border border-line px-3 py-1 ${FOCUS}`}
            >
              Sign out
            </button>
          )}
        </div>
      </div>
    </header>
  )
}
