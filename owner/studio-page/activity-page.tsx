import { useCallback, useEffect, useState } from 'react'
import { FOCUS } from './styles'
import { type AuditEntry, fetchActivity } from './team-api'

/** The record's columns and their share of the width: the how takes what is left. */
const COLUMNS = [
  ['When', 'w-40'],
  ['Who', 'w-1/5'],
  ['What', 'w-24'],
  ['How', ''],
  ['Entries', 'w-20'],
  ['From', 'w-28'],
] as const

/**
 * The record of who did what, newest first (`audit` prints it oldest first): every change made in
 * the team studio, the local studio or the CLI, every sign-in, failed sign-in and refused request.
 * It is read here, never edited: the page has no control that changes it, and the server no route.
 */
export function ActivityPage({ onFail }: { onFail(reason: unknown): void }) {
  const [lines, setLines] = useState<AuditEntry[]>()
  const [next, setNext] = useState<string | null>(null)
  const more = useCallback(
    (after?: string) =>
      fetchActivity(after).then((page) => {
        setLines((shown) => [...(after ? (shown ?? []) : []), ...page.lines])
        setNext(page.next)
      }, onFail),
    [onFail],
  )
  useEffect(() => {
    more()
  }, [more])

  return (
    <section aria-labelledby="activity-heading" className="rounded-lg border border-line bg-panel p-4">
      <h1 id="activity-heading" className="text-2xl font-bold">
        Activity
      </h1>
      <p className="mt-1 text-sm text-soft">
        Who did what, newest first: changes from the studio and the CLI, sign-ins, failed sign-ins and refused
        requests. What a stranger can repeat at will is one line an hour from each network, with how many
        times (×60). Times in UTC; networks as the logs show them.
      </p>
      {lines && lines.length === 0 && <p className="mt-3">Nothing recorded yet.</p>}
      {lines && lines.length > 0 && <ActivityTable lines={lines} />}
      {next && (
        <button
          type="button"
          onClick={() => more(next)}
          className={`mt-3 rounded border border-line px-3 py-1 ${FOCUS}`}
        >
          Older
        </button>
      )}
    </section>
  )
}

/** The lines, one row each: when, who, what (×N when folded), how, how many entries, from where. */
function ActivityTable({ lines }: { lines: AuditEntry[] }) {
  return (
    // No sideways scroll on a phone: the cells wrap instead.
    <div className="mt-3">
      <table className="w-full table-fixed text-left text-sm [overflow-wrap:anywhere]">
        <thead className="border-b border-line">
          <tr>
            {COLUMNS.map(([heading, width]) => (
              <th key={heading} scope="col" className={`py-2 pr-3 font-semibold ${width}`}>
                {heading}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {lines.map((line) => (
            <tr
              key={[line.at, line.actor, line.action, line.detail].join('|')}
              className="border-b border-line align-top"
            >
              <td className="py-2 pr-3 tabular-nums">{line.at.slice(0, 19).replace('T', ' ')}</td>
              <td className="py-2 pr-3">{line.actor}</td>
              <td className="py-2 pr-3">
                {line.action}
                {line.times > 1 && <span className="tabular-nums"> ×{line.times}</span>}
              </td>
              <td className="py-2 pr-3">{line.detail}</td>
              <td className="py-2 pr-3 tabular-nums">{line.count || ''}</td>
              <td className="py-2 pr-3">{line.from}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}
