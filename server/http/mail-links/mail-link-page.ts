import { mailWords, siteConfig } from '../../../contract/site-config'
import { OWN_PAGE_HOME } from '../../analytics/source-of'
import { escapeHtml } from '../../mail/messages/message-html'
import { MAIL_LINK_CSS_PATH, MAIL_LINK_CSS_VERSION } from './mail-link-style'
import { type QuestionsForm, questionsFormHtml } from './questions-form'

/** One button that POSTs back to the link's own URL; the page itself changes nothing. */
export interface PageForm {
  action: string
  button: string
  /** Sends FROM_PAGE too: its answer may then carry what no mail system is handed. */
  fromPage?: boolean
}

export interface MailLinkPage {
  status: number
  title: string
  line: string
  form?: PageForm
  /** The lab's questions, after a confirmation: their "Skip" takes the place of the link home. */
  questions?: QuestionsForm
  /** More of the page after its form, as HTML already escaped (the person's own page, a link to it). */
  body?: string
  /** A page to read rather than one line to act on (the person's own page): wider, set left. */
  wide?: boolean
}

const say = (text: string) => text.replaceAll('{lab}', siteConfig.labName)

// The one-click field, sent by the page's form too, so the POST acts the same whoever makes it.
const ONE_CLICK_FIELD = '<input type="hidden" name="List-Unsubscribe" value="One-Click">'

/**
 * The field only the unsubscribe page's own button sends: its answer may carry the link to the
 * person's data, which a mail system's one-click POST or an unsubscribe service's never gets.
 */
export const FROM_PAGE = { name: 'from', value: 'page' } as const
const FROM_PAGE_FIELD = `<input type="hidden" name="${FROM_PAGE.name}" value="${FROM_PAGE.value}">`

// The site's header (src/sections/site-header.tsx): the logo and the wordmark, linking home.
const { logo, wordmark } = siteConfig
const HEADER_HTML =
  `<header><a class="brand" href="${OWN_PAGE_HOME}">` +
  `<img src="${escapeHtml(logo.src)}" width="${logo.width}" height="${logo.height}" alt="${escapeHtml(logo.alt)}">` +
  `<span>${escapeHtml(wordmark)}</span></a></header>`

function formHtml(form: PageForm): string {
  return (
    `<form method="post" action="${escapeHtml(form.action)}">${ONE_CLICK_FIELD}${form.fromPage ? FROM_PAGE_FIELD : ''}` +
    `<button type="submit">${escapeHtml(say(form.button))}</button></form>`
  )
}

/**
 * A page in the site's look (the 404 page's header and layout, its colours in both schemes), with no script
 * and no inline style: it works without JavaScript and under the site's CSP.
 */
export function renderMailLinkPage(page: MailLinkPage): Response {
  const title = escapeHtml(say(page.title))
  const html = [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="robots" content="noindex">',
    `<title>${title} | ${escapeHtml(siteConfig.labName)}</title>`,
    '<link rel="icon" href="/favicon.svg" type="image/svg+xml">',
    `<link rel="stylesheet" href="${MAIL_LINK_CSS_PATH}?v=${MAIL_LINK_CSS_VERSION}">`,
    '</head>',
    '<body>',
    HEADER_HTML,
    `<main><div class="${page.wide ? 'box wide' : 'box'}">`,
    '<span aria-hidden="true" class="dot"></span>',
    `<h1>${title}</h1>`,
    `<p>${escapeHtml(say(page.line))}</p>`,
    page.form ? formHtml(page.form) : '',
    page.body ?? '',
    page.questions
      ? questionsFormHtml(page.questions)
      : `<a class="home" href="${OWN_PAGE_HOME}">${escapeHtml(mailWords.pages.home)}</a>`,
    '</div></main>',
    '</body>',
    '</html>',
  ].join('\n')
  return new Response(html, {
    status: page.status,
    headers: {
      'Content-Type': 'text/html; charset=utf-8',
      // The link's token is in the URL: never cached, never sent on as a Referer, never indexed.
      'Cache-Control': 'no-store',
      'Referrer-Policy': 'no-referrer',
      'X-Robots-Tag': 'noindex',
    },
  })
}
