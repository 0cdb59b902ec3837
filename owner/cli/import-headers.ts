/**
 * The headers the tools labs use write, and what each is (ADR 116): Google Forms (`Timestamp`,
 * `Email Address`), Typeform (questions as headers, `Submit Date (UTC)`), Tally (`Submitted at`),
 * Mailchimp (`Email Address`, `First Name`, `OPTIN_TIME`, `TAGS`, and `UNSUB_TIME` or `CLEAN_TIME`
 * in its unsubscribed and cleaned exports), Luma (`name`, `first_name`, `created_at`,
 * `approval_status`), Airtable (`Name`, `Email`, `Created`) and a plain spreadsheet (`Company`,
 * `Signed up`). A header is compared folded: any letter case, punctuation as spaces.
 */

/** What a header names: an entry column's name, a part of the name, or a tool's own bookkeeping. */
export type HeaderField = string

/** A header folded: lower case, each run of anything but letters and digits one space. */
export const foldHeader = (header: string) =>
  header
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim()

const ALIASES: Readonly<Record<string, readonly string[]>> = {
  email: ['email', 'e mail', 'email address', 'e mail address', 'your email', 'work email'],
  name: ['name', 'full name', 'your name', 'contact name'],
  first_name: ['first name', 'firstname', 'given name', 'fname', 'first'],
  last_name: ['last name', 'lastname', 'surname', 'family name', 'lname', 'last'],
  organisation: [
    'company',
    'company name',
    'organization',
    'organisation',
    'organization name',
    'organisation name',
    'affiliation',
    'employer',
    'institution',
  ],
  created_at: [
    'timestamp',
    'submitted at',
    'submit date utc',
    'optin time',
    'created at',
    'created',
    'created time',
    'signed up',
    'signed up at',
    'signed up on',
    'signup date',
    'registered at',
  ],
  confirmed_at: ['confirm time'],
  unsubscribed_at: ['unsub time'],
  bounced_at: ['clean time'],
  tags: ['tags', 'tag', 'labels'],
  source: ['source', 'utm source', 'custom source'],
  note: ['note', 'notes'],
  // Luma's: declined → unsubscribed (import-row.ts); any other answer leaves the entry waiting.
  approval_status: ['approval status'],
}

/**
 * The tools' own bookkeeping: their ids, a rating, the network and a location guessed from it,
 * and a form's start time. Not the person's words, and not needed to reach them: left out, as the
 * dry run says, rather than kept as details.
 */
const BOOKKEEPING = new Set([
  // Mailchimp
  'member rating',
  'optin ip',
  'confirm ip',
  'latitude',
  'longitude',
  'gmtoff',
  'dstoff',
  'timezone',
  'cc',
  'region',
  'last changed',
  'leid',
  'euid',
  'unsub campaign title',
  'unsub campaign id',
  'clean campaign title',
  'clean campaign id',
  // Typeform
  'network id',
  'start date utc',
  // Tally
  'submission id',
  'respondent id',
  // Luma
  'api id',
  'qr code url',
  'ticket type id',
])

const BY_ALIAS = new Map(
  Object.entries(ALIASES).flatMap(([field, aliases]) => aliases.map((alias) => [alias, field] as const)),
)

/** A form's question as a header: "What's your email?", "Your name", "Please enter your e-mail". */
const QUESTION = /\?|^(what|which|your|please|enter)\b/

/**
 * What a header names by the tools' words, or `bookkeeping`, or undefined for a column of its own
 * (kept as a detail). A question naming the address or the name is read as that field; any other
 * question is for `--column`.
 */
export function fieldOfHeader(header: string): HeaderField | 'bookkeeping' | undefined {
  if (header.trim() === '#') return 'bookkeeping'
  const folded = foldHeader(header)
  const known = BY_ALIAS.get(folded)
  if (known) return known
  if (BOOKKEEPING.has(folded)) return 'bookkeeping'
  if (!QUESTION.test(header.trim().toLowerCase())) return undefined
  const words = ` ${folded} `
  if (/ (email|e mail) /.test(words)) return 'email'
  if (/ name /.test(words) && !/ (company|organi[sz]ation|first|last|user) /.test(words)) return 'name'
  return undefined
}
