import { type FormEvent, useCallback, useEffect, useState } from 'react'
import { ROLES, type Role } from '../../contract/team-roles'
import { FOCUS } from './styles'
import { changeTeam, fetchTeam, type TeamMember } from './team-api'

const BUTTON = `rounded border border-line px-3 py-1 ${FOCUS}`

/**
 * The team, for owners (`team add|role|remove|link` in the browser): each member's role, passkeys
 * and last sign-in; a new member's or a lost device's enrolment link, shown once to hand over.
 */
export function TeamPage({ onFail }: { onFail(reason: unknown): void }) {
  const [members, setMembers] = useState<TeamMember[]>()
  const [link, setLink] = useState<{ email: string; link: string }>()
  const [said, setSaid] = useState('')
  const load = useCallback(() => fetchTeam().then((read) => setMembers(read.members), onFail), [onFail])
  useEffect(() => {
    load()
  }, [load])
  const change = (action: 'add' | 'role' | 'remove' | 'link', email: string, role?: Role) =>
    changeTeam(action, { email, role }).then((done) => {
      setLink(done.link ? { email, link: done.link } : undefined)
      setSaid(WORDS[action](email, role))
      load()
    }, onFail)

  return (
    <section aria-labelledby="team-heading" className="space-y-4 rounded-lg border border-line bg-panel p-4">
      <h1 id="team-heading" className="text-2xl font-bold">
        Team
      </h1>
      <ul className="space-y-3">
        {members?.map((member) => (
          <MemberRow key={member.id} member={member} onChange={change} />
        ))}
      </ul>
      <AddMember onAdd={(email, role) => change('add', email, role)} />
      <p role="status" className={said ? 'text-accent' : 'sr-only'}>
        {said}
      </p>
      {link && (
        <div>
          <label htmlFor="enrolment-link" className="block text-sm font-medium">
            Enrolment link for {link.email} (one use, 24 hours; hand it over privately)
          </label>
          <input
            id="enrolment-link"
            readOnly
            value={link.link}
            className={`mt-1 w-full rounded border border-line bg-page px-3 py-1 font-mono text-sm ${FOCUS}`}
          />
        </div>
      )}
    </section>
  )
}

const WORDS = {
  add: (email: string, role?: Role) => `Added ${email} as ${role === 'owner' ? 'an' : 'a'} ${role}.`,
  role: (email: string, role?: Role) => `${email} is now ${role === 'owner' ? 'an' : 'a'} ${role}.`,
  remove: (email: string) => `Removed ${email}; their sessions ended.`,
  link: (email: string) =>
    `A new enrolment link for ${email}; the one before no longer works, and their sessions ended.`,
}

function RoleSelect(props: { id: string; value: Role; label: string; onChange(role: Role): void }) {
  return (
    <select
      id={props.id}
      aria-label={props.label}
      value={props.value}
      onChange={(event) => props.onChange(event.target.value as Role)}
      className={`rounded border border-line bg-page px-2 py-1 ${FOCUS}`}
    >
      {ROLES.map((role) => (
        <option key={role}>{role}</option>
      ))}
    </select>
  )
}

function MemberRow(props: {
  member: TeamMember
  onChange(action: 'role' | 'remove' | 'link', email: string, role?: Role): void
}) {
  const { member } = props
  const [removing, setRemoving] = useState(false)
  return (
    <li className="flex flex-wrap items-center gap-2 border-b border-line pb-3">
      <span className="min-w-0 grow break-all font-medium">{member.email}</span>
      <RoleSelect
        id={`role-${member.id}`}
        label={`Role of ${member.email}`}
        value={member.role}
        onChange={(role) => props.onChange('role', member.email, role)}
      />
      <button type="button" className={BUTTON} onClick={() => props.onChange('link', member.email)}>
        New link
      </button>
      {removing ? (
        <button
          type="button"
          className={`rounded border border-danger bg-danger-soft px-3 py-1 text-danger ${FOCUS}`}
          onClick={() => props.onChange('remove', member.email)}
        >
          Remove {member.email} now
        </button>
      ) : (
        <button
          type="button"
          aria-label={`Remove ${member.email}`}
          className={`rounded border border-danger px-3 py-1 text-danger ${FOCUS}`}
          onClick={() => setRemoving(true)}
        >
          Remove
        </button>
      )}
      <p className="w-full text-sm text-soft">
        {member.passkeys === 1 ? '1 passkey' : `${member.passkeys} passkeys`};{' '}
        {member.lastSignIn
          ? `last sign-in ${member.lastSignIn.slice(0, 16).replace('T', ' ')} UTC`
          : 'never signed in'}
        {member.linkOpen ? '; an enrolment link is open' : ''}
      </p>
    </li>
  )
}

function AddMember({ onAdd }: { onAdd(email: string, role: Role): void }) {
  const [email, setEmail] = useState('')
  const [role, setRole] = useState<Role>('viewer')
  function submit(event: FormEvent) {
    event.preventDefault()
    onAdd(email, role)
    setEmail('')
  }
  return (
    <form onSubmit={submit} className="flex flex-wrap items-end gap-2">
      <div>
        <label htmlFor="new-member" className="block text-sm font-medium">
          Add to the team: address
        </label>
        <input
          id="new-member"
          type="email"
          required
          value={email}
          onChange={(event) => setEmail(event.target.value)}
          className={`mt-1 rounded border border-line bg-page px-3 py-1 ${FOCUS}`}
        />
      </div>
      <RoleSelect id="new-member-role" label="Their role" value={role} onChange={setRole} />
      <button type="submit" className={BUTTON}>
        Add to the team
      </button>
    </form>
  )
}
