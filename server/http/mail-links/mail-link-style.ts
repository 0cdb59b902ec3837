import { createHash } from 'node:crypto'

/**
 * The mail-link pages' stylesheet: the site's look (src/styles.css: the same colour tokens, switched
 * by the system's colour scheme, the same type) for a page laid out as the 404 page. A file of its
 * own, never inline, so the site's Content-Security-Policy serves these pages unchanged.
 */
export const MAIL_LINK_CSS = `:root {
  color-scheme: light dark;
  --page: #ffffff; --ink: #0b1220; --soft: #4b5768; --accent: #15803d; --signal: #22c55e;
  --button: #0b1220; --button-ink: #ffffff;
}
@media (prefers-color-scheme: dark) {
  :root {
    --page: #090d13; --ink: #e9eef4; --soft: #9ba8b7; --accent: #4ade80;
    --button: #e9eef4; --button-ink: #090d13;
  }
}
html {
  font-family: -apple-system, BlinkMacSystemFont, "Segoe UI", Roboto, "Helvetica Neue", Arial, system-ui, sans-serif;
  -webkit-font-smoothing: antialiased;
}
body { margin: 0; background: var(--page); color: var(--ink); display: flex; flex-direction: column; min-height: 100vh; }
header { box-sizing: border-box; width: 100%; max-width: 72rem; margin: 0 auto; padding: 24px; }
.brand { display: inline-flex; align-items: center; gap: 12px; border-radius: 6px; color: var(--ink); text-decoration: none; font-size: 1.125rem; font-weight: 600; letter-spacing: -0.025em; }
.brand img { border-radius: 7px; }
@media (prefers-color-scheme: dark) { .brand img { box-shadow: 0 0 0 1px rgb(255 255 255 / 0.2); } }
main { box-sizing: border-box; display: flex; flex: 1; align-items: center; justify-content: center; padding: 0 24px 80px; }
.box { max-width: 36rem; text-align: center; }
.dot { display: block; width: 8px; height: 8px; margin: 0 auto 24px; border-radius: 9999px; background: var(--signal); }
h1 { margin: 0; font-size: 2.25rem; line-height: 1.1; font-weight: 600; letter-spacing: -0.03em; text-wrap: balance; }
p { margin: 16px 0 0; font-size: 1.125rem; line-height: 1.6; color: var(--soft); }
form { margin: 32px 0 0; }
button {
  font: inherit; font-weight: 500; padding: 10px 22px; border: 0; border-radius: 6px;
  background: var(--button); color: var(--button-ink); cursor: pointer;
}
:focus-visible { outline: 2px solid var(--accent); outline-offset: 3px; }
.questions { max-width: 28rem; margin: 40px auto 0; text-align: left; }
.questions .intro { margin: 0; font-size: 1rem; }
.field { margin-top: 20px; }
.field label { display: block; margin-bottom: 6px; font-weight: 500; }
select, input, textarea {
  box-sizing: border-box; width: 100%; font: inherit; font-size: 1rem; padding: 8px 10px;
  border: 1px solid var(--soft); border-radius: 6px; background: var(--page); color: var(--ink);
}
textarea { resize: vertical; }
.actions { display: flex; align-items: center; gap: 24px; margin-top: 28px; }
.home, .skip {
  display: inline-block; border-radius: 6px; color: var(--ink); font-weight: 500;
  text-decoration: underline; text-decoration-color: var(--accent); text-decoration-thickness: 2px; text-underline-offset: 4px;
}
.home { margin-top: 32px; }
.home:hover, .skip:hover { color: var(--accent); }
@media (min-width: 640px) { h1 { font-size: 3rem; } p { font-size: 1.25rem; } }
.box.wide { max-width: 42rem; width: 100%; text-align: left; padding-top: 24px; }
.box.wide .dot { margin-left: 0; }
.box.wide section { margin-top: 36px; }
h2 { margin: 0 0 12px; font-size: 1.25rem; line-height: 1.3; font-weight: 600; letter-spacing: -0.02em; }
dl { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: 6px 16px; margin: 0; }
dt { font-weight: 500; }
dd { margin: 0; color: var(--soft); overflow-wrap: anywhere; }
dl .full { grid-column: 1 / -1; }
.box.wide section p { margin: 0; font-size: 1rem; }
.box.wide .actions + p { margin-top: 12px; }
.words { margin: 0; white-space: pre-wrap; overflow-wrap: anywhere; font: inherit; font-size: 0.9375rem; color: var(--soft); }
.history { list-style: none; margin: 0; padding: 0; display: grid; gap: 6px; color: var(--soft); }
.history time { color: var(--ink); font-variant-numeric: tabular-nums; margin-right: 12px; }
.actions { flex-wrap: wrap; }
.actions form { margin: 0; }
.actions a, .actions button { white-space: nowrap; }
.box:not(.wide) > form .actions { justify-content: center; }
a.button {
  display: inline-block; padding: 10px 22px; border-radius: 6px; font-weight: 500; text-decoration: none;
  background: var(--button); color: var(--button-ink);
}
button.quiet, a.quiet { background: transparent; color: var(--ink); box-shadow: inset 0 0 0 1px var(--soft); }
`

/** Its path, versioned by its content so it can be cached for a year. */
export const MAIL_LINK_CSS_PATH = `/mail-links.css`
export const MAIL_LINK_CSS_VERSION = createHash('sha256').update(MAIL_LINK_CSS).digest('hex').slice(0, 10)

export function serveMailLinkCss(): Response {
  return new Response(MAIL_LINK_CSS, {
    headers: {
      'Content-Type': 'text/css; charset=utf-8',
      'Cache-Control': 'public, max-age=31536000, immutable',
    },
  })
}
