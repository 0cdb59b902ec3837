import { agentPhrase } from '../../../contract/agent-words'
import type { Answers } from '../../../contract/signup-questions'
import { mailWords, nameQuestion, signupQuestions, siteConfig } from '../../../contract/site-config'
import { escapeHtml } from '../../mail/messages/message-html'
import type { ConsentRecord } from '../../waitlist/consent/consent-record'
import type { PersonData } from '../../waitlist/person-data'
import type { PersonHistoryItem } from '../../waitlist/person-history'
import type { MailLinkPage } from '../mail-links/mail-link-page'

const words = mailWords.pages.yourData
const say = (text: string) => escapeHtml(text.replaceAll('{lab}', siteConfig.labName))

/** `2026-12-05 09:00 UTC` from the microsecond UTC times. */
const when = (at: string) => `${at.slice(0, 16).replace('T', ' ')} UTC`
const time = (at: string) => `<time datetime="${escapeHtml(at)}">${escapeHtml(when(at))}</time>`

const pair = (term: string, value: string, full = false) =>
  full
    ? `<dt class="full">${say(term)}</dt><dd class="full">${value}</dd>`
    : `<dt>${say(term)}</dt><dd>${value}</dd>`

function section(heading: string, content: string): string {
  return `<section><h2>${say(heading)}</h2>${content}</section>`
}

function entrySection(data: PersonData): string {
  return section(
    words.entry,
    `<dl>${[
      pair(words.address, escapeHtml(data.email)),
      pair(words.name, data.name ? escapeHtml(data.name) : say(words.noName)),
      pair(words.status, escapeHtml(data.status)),
      data.signed_up_at ? pair(words.signedUp, time(data.signed_up_at)) : '',
      data.source ? pair(words.source, escapeHtml(data.source)) : '',
    ].join('')}</dl>`,
  )
}

const ASKED = [nameQuestion, ...signupQuestions]

/** Answers by the question's label, in the lab's order; an answer to no current question by its id. */
function answerList(answers: Answers): string {
  const labelOf = (id: string) => ASKED.find((question) => question.id === id)?.label ?? id
  const given = Object.entries(answers)
  if (given.length === 0) return `<p>${say(words.noAnswers)}</p>`
  return `<dl>${given.map(([id, value]) => pair(labelOf(id), escapeHtml(value))).join('')}</dl>`
}

function answersSection(data: PersonData): string {
  const proposed = Object.keys(data.proposed).length > 0
  return (
    section(words.answers, answerList(data.answers)) +
    (proposed ? section(words.proposed, answerList(data.proposed)) : '')
  )
}

/** What the lab's earlier list held besides, by its column's header, as the list had it. */
function detailsSection(details: Record<string, unknown>): string {
  const given = Object.entries(details)
  if (given.length === 0) return ''
  const text = (value: unknown) => escapeHtml(typeof value === 'string' ? value : JSON.stringify(value))
  return section(
    words.details,
    `<dl>${given.map(([header, value]) => pair(header, text(value))).join('')}</dl>`,
  )
}

/** The team's tags and note: the person's to read (GDPR Art. 15; ADR 117). */
function marksSection(data: PersonData): string {
  const marks = [
    data.tags.length > 0 ? pair(words.tags, escapeHtml(data.tags.join(', '))) : '',
    data.note ? pair(words.note, escapeHtml(data.note), true) : '',
  ].join('')
  const content = marks === '' ? `<p>${say(words.noMarks)}</p>` : `<dl>${marks}</dl>`
  return section(words.marks, `<p>${say(words.marksLine)}</p>${content}`)
}

function wordsShown(consent: ConsentRecord): string {
  if (!consent.words) return say(words.noWords)
  if (consent.words.text === null) return say(words.unknownWords.replace('{version}', consent.words.version))
  return `<pre class="words">${escapeHtml(consent.words.text)}</pre>`
}

function consentSection(consent: ConsentRecord | null): string {
  if (!consent) return section(words.consent, `<p>${say(words.noConsent)}</p>`)
  const { agent } = consent
  const agentText = agent && `${say(words.madeThrough)} ${escapeHtml(agentPhrase(agent))}`
  const confirmed = consent.confirmed_at
    ? `${time(consent.confirmed_at)}${consent.confirmed_from ? `, ${escapeHtml(consent.confirmed_from)}` : ''}`
    : say(words.notConfirmed)
  return section(
    words.consent,
    `<dl>${[
      pair(words.consentAt, time(consent.at)),
      pair(words.door, say(words.doors[consent.door])),
      consent.network ? pair(words.network, escapeHtml(consent.network)) : '',
      agentText ? pair(words.agent, agentText) : '',
      pair(words.confirmed, confirmed),
      pair(words.words, wordsShown(consent), true),
    ].join('')}</dl>`,
  )
}

/** A history line: when, and what, in the person's words (person-history.ts). */
function historyLine(item: PersonHistoryItem): string {
  return `<li>${time(item.at)} ${escapeHtml(item.what)}</li>`
}

/** How long backups keep an erased entry, when the server keeps them (continuous backup). */
const backupsLine = (days: number | undefined) =>
  days === undefined ? '' : `<p>${say(words.backupsLine.replaceAll('{days}', String(days)))}</p>`

function actions(token: string, backupDays: number | undefined): string {
  const t = encodeURIComponent(token)
  return (
    '<section><div class="actions">' +
    `<a class="button" href="/your-data/download?t=${t}" download>${say(words.download)}</a>` +
    `<form method="post" action="/your-data/erase?t=${t}"><button type="submit" class="quiet">${say(words.erase)}</button></form>` +
    `</div><p>${say(words.eraseLine)}</p>${backupsLine(backupDays)}</section>`
  )
}

/**
 * The person's own page: what the lab holds about the address, then Download and Erase me, and
 * how long backups keep it (`backupDays`, when the server keeps a continuous backup).
 */
export function yourDataPage(data: PersonData, token: string, backupDays?: number): MailLinkPage {
  const history = `<ol class="history">${data.history.map(historyLine).join('')}</ol>`
  return {
    status: 200,
    title: words.title,
    line: words.line,
    wide: true,
    body: [
      entrySection(data),
      answersSection(data),
      detailsSection(data.details),
      marksSection(data),
      consentSection(data.consent),
      section(words.history, history),
      actions(token, backupDays),
    ].join('\n'),
  }
}

/** The confirmation step of "Erase me": its own POST, with `confirm=yes`, erases; the other link keeps. */
export function confirmErasurePage(token: string): MailLinkPage {
  const t = encodeURIComponent(token)
  return {
    status: 200,
    title: words.confirmTitle,
    line: words.confirmLine,
    body:
      `<form method="post" action="/your-data/erase?t=${t}"><input type="hidden" name="confirm" value="yes">` +
      `<div class="actions"><button type="submit">${say(words.confirmButton)}</button>` +
      `<a class="skip" href="/your-data?t=${t}">${say(words.keep)}</a></div></form>`,
  }
}
