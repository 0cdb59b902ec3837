import type { EntryPage } from './api'

const FOCUS = 'focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-blue-700'

/** One page of the list, newest first, each row with its Remove button, and the paging controls. */
export function EntriesTable(props: {
  page: EntryPage | undefined
  searching: boolean
  onPage(page: number): void
  onRemove(email: string): void
}) {
  const { page } = props
  if (!page) return <p className="mt-4 text-slate-600">Loading…</p>
  const pages = Math.max(1, Math.ceil(page.matching / page.pageSize))
  return (
    <>
      {page.entries.length === 0 ? (
        <p className="mt-4 text-slate-600">
          {props.searching ? 'No address matches the search.' : 'Nobody is on the waitlist yet.'}
        </p>
      ) : (
        <table className="mt-4 w-full border-collapse text-left text-sm">
          <thead>
            <tr className="border-b border-slate-300">
              <th scope="col" className="py-2 pr-4 font-semibold">
                Address
              </th>
              <th scope="col" className="py-2 pr-4 font-semibold">
                Signed up (UTC)
              </th>
              <th scope="col" className="py-2 font-semibold">
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {page.entries.map((entry) => (
              <tr key={entry.email} className="border-b border-slate-200">
                <td className="py-2 pr-4 break-all">{entry.email}</td>
                <td className="py-2 pr-4 whitespace-nowrap tabular-nums">
                  {entry.created_at.slice(0, 19).replace('T', ' ')}
                </td>
                <td className="py-2 text-right">
                  <button
                    type="button"
                    aria-label={`Remove ${entry.email}`}
                    onClick={() => props.onRemove(entry.email)}
                    className={`rounded border border-red-700 px-2 py-1 text-red-800 hover:bg-red-50 ${FOCUS}`}
                  >
                    Remove
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <nav aria-label="Pages" className="mt-4 flex items-center justify-between gap-2 text-sm">
        <button
          type="button"
          disabled={page.page <= 1}
          onClick={() => props.onPage(page.page - 1)}
          className={`rounded border border-slate-300 px-3 py-1 disabled:opacity-50 ${FOCUS}`}
        >
          Previous
        </button>
        <span>
          Page {page.page} of {pages} · {page.matching} {props.searching ? 'matching' : 'in all'}
        </span>
        <button
          type="button"
          disabled={page.page >= pages}
          onClick={() => props.onPage(page.page + 1)}
          className={`rounded border border-slate-300 px-3 py-1 disabled:opacity-50 ${FOCUS}`}
        >
          Next
        </button>
      </nav>
    </>
  )
}
