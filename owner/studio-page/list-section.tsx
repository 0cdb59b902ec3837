import { type RefObject, useCallback, useEffect, useMemo, useState } from 'react'
import { AnswerFilters } from './answer-filters'
import { type EntryPage, fetchEntries, type PageStart, type Summary } from './api'
import { EntriesTable, type Selection } from './entries-table'
import { type Filters, isFiltered, type ListView, NEWEST_FIRST, type Sort, useUrlView } from './filters'
import { InvitePanel } from './invite-panel'
import { InviteSelected } from './invite-selected'
import { ColumnPicker, FilterFold, MarkFilters } from './list-controls'
import { useMay } from './role'
import { StatusFilter } from './status-filter'
import { FOCUS } from './styles'
import { TABLE_COLUMNS, useHiddenColumns } from './table-columns'
import { TagSelected } from './tag-selected'

type Fail = (reason: unknown) => void

/** Where the list is: where its page starts, and that page's number as the owner has counted it. */
interface Position {
  start: PageStart
  number: number
}

const FIRST_PAGE: Position = { start: {}, number: 1 }

/** The list's order in words, as its heading and "Invite the next N" say it: "newest first", "by organisation, A to Z". */
export function orderWords(sort: Sort): string {
  const column = TABLE_COLUMNS.find((each) => each.id === sort.column)
  if (!column) return ''
  const way = column.orders[sort.descending ? 1 : 0]
  return sort.column === NEWEST_FIRST.column ? way : `by ${column.label.toLowerCase()}, ${way}`
}

/** "Signups, newest first", "Signups by organisation, A to Z": the list's heading says its order. */
function headingOf(sort: Sort): string {
  const words = orderWords(sort)
  if (words === '') return 'Signups'
  return sort.column === NEWEST_FIRST.column ? `Signups, ${words}` : `Signups ${words}`
}

/**
 * The list as a table of people: its search, its filters (each status with its count, the sources,
 * the answers, the tags, the domains; kept in the page's address with the order, and folded on a
 * phone), "Invite the next N" of what they match, the rows ticked to invite or tag, the columns
 * shown, its pages.
 */
export function ListSection(props: {
  summary: Summary | undefined
  version: number
  onFail: Fail
  heading: RefObject<HTMLHeadingElement | null>
  onOpen(email: string): void
  /** Something changed the list (an invitation, a tag): the page reads it afresh. */
  onChanged(): void
}) {
  const { summary } = props
  const [search, setSearch] = useState('')
  const [query, setQuery] = useState('')
  const [view, setView] = useUrlView()
  const { filters, sort } = view
  const [position, setPosition] = useState<Position>(FIRST_PAGE)
  const [hidden, setHidden] = useHiddenColumns()
  const selection = useSelection()
  const entries = useEntries({ query, view }, position.start, props.version, props.onFail)
  useSearchSettling(search, query, setQuery, setPosition)
  const change = useCallback(
    (next: ListView) => {
      setView(next)
      setPosition(FIRST_PAGE)
    },
    [setView],
  )
  const filter = useCallback((next: Filters) => change({ filters: next, sort }), [change, sort])
  const onPage = useMemo(() => entries?.entries.map((entry) => entry.email) ?? [], [entries])
  return (
    <section aria-labelledby="list-heading" className="rounded-lg border border-line bg-panel p-4">
      <h2 id="list-heading" ref={props.heading} tabIndex={-1} className="text-lg font-semibold">
        {headingOf(sort)}
      </h2>
      <SearchBox value={search} onChange={setSearch} />
      <FilterFold filters={filters}>
        <ListFilters filters={filters} summary={summary} onChange={filter} />
      </FilterFold>
      <ListActions
        view={view}
        shown={query === '' ? entries?.matching : undefined}
        selection={selection}
        onPage={onPage}
        known={summary?.tags.map(({ tag }) => tag) ?? []}
        onChanged={props.onChanged}
      />
      <ColumnPicker hidden={hidden} onChange={setHidden} />
      <EntriesTable
        {...{ page: entries, number: position.number, searching: query !== '' || isFiltered(filters) }}
        noMatch={noMatch(query, filters)}
        sort={sort}
        onSort={(next) => change({ filters, sort: next })}
        hidden={hidden}
        onPage={(start, number) => setPosition({ start, number })}
        {...{ onOpen: props.onOpen, selection }}
      />
    </section>
  )
}

/** What the owner does with what the list shows: invite the next N of it, or the rows ticked; tag them. */
function ListActions(props: {
  view: ListView
  shown: number | undefined
  selection: ReturnType<typeof useSelection>
  onPage: readonly string[]
  known: readonly string[]
  onChanged(): void
}) {
  const { selection, onPage, onChanged } = props
  // A viewer sees the list and acts on none of it (the server refuses them all the same).
  if (!useMay('member')) return null
  return (
    <>
      <InvitePanel
        view={props.view}
        order={orderWords(props.view.sort)}
        shown={props.shown}
        filtered={isFiltered(props.view.filters)}
        onQueued={onChanged}
      />
      <InviteSelected
        {...{ selected: selection.list, onPage, onClear: selection.clear, onQueued: onChanged }}
        onSelectPage={(on) => selection.setMany(onPage, on)}
      />
      <TagSelected selected={selection.list} known={props.known} onTagged={onChanged} />
    </>
  )
}

/** Every filter: the statuses with their counts, the sources and answers, the tags and domains. */
function ListFilters(props: {
  filters: Filters
  summary: Summary | undefined
  onChange(filters: Filters): void
}) {
  const { filters, summary, onChange } = props
  return (
    <>
      <StatusFilter
        counts={summary?.statuses}
        selected={filters.statuses}
        onChange={(statuses) => onChange({ ...filters, statuses })}
      />
      <AnswerFilters
        {...{ filters, sources: summary?.sources, moreSources: summary?.moreSources ?? false }}
        onChange={onChange}
      />
      <MarkFilters filters={filters} summary={summary} onChange={onChange} />
    </>
  )
}

/** What an empty page says while searching or filtering. */
function noMatch(query: string, filters: Filters): string {
  if (query !== '') return 'No address matches the search.'
  const onlyStatuses =
    filters.sources.length + filters.answers.length + filters.domains.length + filters.tags.length === 0
  return onlyStatuses ? 'No entry has the statuses ticked.' : 'No entry matches the filters.'
}

/**
 * The addresses ticked for "Invite selected" and "Tag selected", in the order ticked: kept across
 * pages, searches, filters and orders, so a cohort can be gathered from several.
 */
function useSelection(): Selection & {
  list: string[]
  setMany(emails: readonly string[], on: boolean): void
  clear(): void
} {
  const [list, setList] = useState<string[]>([])
  const setMany = useCallback((emails: readonly string[], on: boolean) => {
    setList((current) => {
      const rest = current.filter((email) => !emails.includes(email))
      return on ? [...rest, ...emails] : rest
    })
  }, [])
  return {
    list,
    has: (email) => list.includes(email),
    toggle: (email, on) => setMany([email], on),
    setMany,
    clear: useCallback(() => setList([]), []),
  }
}

/** The page of the list that the search, the filters and the order ask for, from where it starts. */
function useEntries(
  matching: { query: string; view: ListView },
  start: PageStart,
  version: number,
  fail: Fail,
) {
  const [entries, setEntries] = useState<EntryPage>()
  const { query, view } = matching
  // biome-ignore lint/correctness/useExhaustiveDependencies: version asks for a fresh read after a change
  useEffect(() => {
    let current = true
    // An answer for a page or search left behind meanwhile must not replace the newer one.
    fetchEntries(query, view.filters, view.sort, start).then((next) => current && setEntries(next), fail)
    return () => {
      current = false
    }
  }, [query, view, start, version, fail])
  return entries
}

/**
 * The list follows the search box a moment after typing stops; only a new search goes back to
 * page 1 (not the first render, which would undo a quick click on Next).
 */
function useSearchSettling(
  search: string,
  query: string,
  setQuery: (query: string) => void,
  setPosition: (position: Position) => void,
) {
  useEffect(() => {
    const next = search.trim()
    if (next === query) return
    const timer = setTimeout(() => {
      setQuery(next)
      setPosition(FIRST_PAGE)
    }, 250)
    return () => clearTimeout(timer)
  }, [search, query, setQuery, setPosition])
}

function SearchBox({ value, onChange }: { value: string; onChange: (value: string) => void }) {
  return (
    <div className="mt-3">
      <label htmlFor="search" className="block text-sm font-medium">
        Search addresses
      </label>
      <input
        id="search"
        type="search"
        value={value}
        aria-describedby="search-rule"
        onChange={(event) => onChange(event.target.value)}
        className={`mt-1 w-full rounded border border-line bg-page px-3 py-2 ${FOCUS}`}
      />
      {/* The rule of server/waitlist/admin/email-search.ts, said where the owner types. */}
      <p id="search-rule" className="mt-1 text-sm text-soft">
        One or two characters find addresses or domains that start with them; more find them anywhere.
      </p>
    </div>
  )
}
