import type { Entry } from '../../server/waitlist/admin/waitlist-admin'
import type { EntryPage, PageStart } from './api'
import { EmailAddress } from './email-address'
import { useMay } from './role'
import { FOCUS } from './styles'

/** Moves to the page that starts there, whose number is `number`. */
type OnPage = (start: PageStart, number: number) => void

/** The rows ticked for "Invite selected", and how a tick changes them. */
export interface Selection {
  has(email: string): boolean
  toggle(email: string, on: boolean): void
}

/**
 * One page of the list, newest first, each row with its box for "Invite selected", its address
 * (which opens the entry's panel) and its Remove button, and the paging controls.
 */
export function EntriesTable(props: {
  page: EntryPage | undefined
  /** The page's number, counted by the owner's moves. */
  number: number
  /** A search or a filter narrows the list: its count is of the matches, and none says so. */
  searching: boolean
  /** What an empty page says while searching. */
  noMatch: string
  onPage: OnPage
  onRemove(email: string): void
  onOpen(email: string): void
  selection: Selection
}) {
  const { page } = props
  if (!page) return <p className="mt-4 text-soft">Loading…</p>
  return (
    <>
      {page.entries.length === 0 ? (
        <p className="mt-4 text-soft">{props.searching ? props.noMatch : 'Nobody is on the waitlist yet.'}</p>
      ) : (
        <table className="mt-4 w-full border-collapse text-left text-sm">
          {/* On a phone each row is a card: the address over its date, Remove beside them. */}
          <thead className="max-sm:sr-only">
            <tr className="border-b border-line">
              <th scope="col" className="py-2 pr-2 font-semibold">
                <span className="sr-only">Selected</span>
              </th>
              <th scope="col" className="py-2 pr-4 font-semibold">
                Address
              </th>
              <th scope="col" className="py-2 pr-4 font-semibold">
                Signed up (UTC)
              </th>
              <th scope="col" className="py-2 pr-4 font-semibold">
                Status
              </th>
              <th scope="col" className="py-2 font-semibold">
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {page.entries.map((entry) => (
              <EntryRow
                key={entry.email}
                entry={entry}
                selected={props.selection.has(entry.email)}
                onSelect={(on) => props.selection.toggle(entry.email, on)}
                onOpen={() => props.onOpen(entry.email)}
                onRemove={props.onRemove}
              />
            ))}
          </tbody>
        </table>
      )}
      <Paging page={page} number={props.number} searching={props.searching} onPage={props.onPage} />
    </>
  )
}

function EntryRow(props: {
  entry: Entry
  selected: boolean
  onSelect(on: boolean): void
  onOpen(): void
  onRemove(email: string): void
}) {
  const { entry } = props
  const mayInvite = useMay('member')
  const mayRemove = useMay('owner')
  return (
    <tr className="grid grid-cols-[auto_minmax(0,1fr)_auto] gap-x-3 border-b border-line py-3 sm:table-row sm:py-0">
      <td className="col-start-1 row-span-3 row-start-1 self-center sm:py-2 sm:pr-2">
        {mayInvite && (
          <input
            type="checkbox"
            aria-label={`Select ${entry.email}`}
            checked={props.selected}
            onChange={(event) => props.onSelect(event.target.checked)}
            className={`max-sm:size-5 ${FOCUS}`}
          />
        )}
      </td>
      <td className="col-start-2 row-start-1 min-w-0 sm:py-2 sm:pr-4">
        {/* The address opens the entry's panel: its answers and history, as `show` prints them. */}
        <button
          type="button"
          onClick={props.onOpen}
          className={`block w-full min-w-0 text-left underline decoration-line underline-offset-2 hover:decoration-accent ${FOCUS}`}
        >
          <EmailAddress email={entry.email} />
        </button>
      </td>
      <td className="col-start-2 text-xs whitespace-nowrap text-soft tabular-nums sm:py-2 sm:pr-4 sm:text-sm sm:text-ink">
        {entry.created_at.slice(0, 19).replace('T', ' ')}
      </td>
      <td className="col-start-2 text-xs text-soft sm:py-2 sm:pr-4 sm:text-sm sm:text-ink">{entry.status}</td>
      <td className="col-start-3 row-span-3 row-start-1 self-center text-right sm:py-2">
        {mayRemove && (
          <button
            type="button"
            aria-label={`Remove ${entry.email}`}
            onClick={() => props.onRemove(entry.email)}
            className={`rounded border border-danger px-2 py-1 text-danger hover:bg-danger-soft max-sm:min-h-11 max-sm:px-3 ${FOCUS}`}
          >
            Remove
          </button>
        )}
      </td>
    </tr>
  )
}

const count = (value: number) => value.toLocaleString('en-US')

/**
 * The page's number: the first page has none before it and the last none after it, whatever the
 * count of moves says (entries come and go meanwhile).
 */
function shownNumber(page: EntryPage, number: number, pages: number): number {
  if (page.previous === null) return 1
  if (page.next === null && !page.capped) return pages
  return page.capped ? Math.max(number, 2) : Math.min(Math.max(number, 2), pages)
}

function Paging(props: { page: EntryPage; number: number; searching: boolean; onPage: OnPage }) {
  const { page, onPage } = props
  const pages = Math.max(1, Math.ceil(page.matching / page.pageSize))
  const number = shownNumber(page, props.number, pages)
  const matching = page.capped
    ? `more than ${count(page.matching)} matching`
    : `${count(page.matching)} ${props.searching ? 'matching' : 'in all'}`
  return (
    <nav aria-label="Pages" className="mt-4 flex items-center justify-between gap-2 text-sm">
      <button
        type="button"
        disabled={page.previous === null}
        onClick={() => page.previous !== null && onPage({ before: page.previous }, number - 1)}
        className={`rounded border border-line px-3 py-1 disabled:opacity-50 ${FOCUS}`}
      >
        Previous
      </button>
      <span>
        Page {count(number)}
        {page.capped ? '' : ` of ${count(pages)}`} · {matching}
      </span>
      <button
        type="button"
        disabled={page.next === null}
        onClick={() => page.next !== null && onPage({ after: page.next }, number + 1)}
        className={`rounded border border-line px-3 py-1 disabled:opacity-50 ${FOCUS}`}
      >
        Next
      </button>
    </nav>
  )
}
