import { loadEnv, type Plugin } from 'vite'
import { ORIGIN_TRIAL_TOKEN, ORIGIN_TRIAL_TOKEN_RULE } from '../contract/origin-trial.ts'
import {
  ANON_KEY_PLACEHOLDER,
  CONFIRM_SIGNUPS_PLACEHOLDER,
  SITE_URL_PLACEHOLDER,
} from '../contract/site-url.ts'

/** The settings a static host's build cannot do without: nothing fills them in later. */
const REQUIRED = ['SITE_URL', 'VITE_SUPABASE_URL', 'VITE_SUPABASE_ANON_KEY'] as const
/** Chrome's origin-trial token for WebMCP on SITE_URL's origin (ADR 052); the server sends it as a header. */
const ORIGIN_TRIAL = 'WEBMCP_ORIGIN_TRIAL_TOKEN'

/** As the server reads SITE_URL: paths are appended, so no trailing slash; a plain address only. */
function siteUrlOf(raw: string): string {
  const url = new URL(raw)
  const plain = `${url.origin}${url.pathname.replace(/\/+$/, '')}`
  if (!/^https?:$/.test(url.protocol) || url.search || url.hash || /["'<>&\s]/.test(plain))
    throw new Error(`SITE_URL must be a plain address such as https://lab.example.com, not ${raw}`)
  return plain
}

function originTrialTokenOf(raw: string | undefined): string | undefined {
  if (!raw) return undefined
  if (!ORIGIN_TRIAL_TOKEN.test(raw)) throw new Error(`${ORIGIN_TRIAL} ${ORIGIN_TRIAL_TOKEN_RULE}`)
  return raw
}

/** The token as a meta tag right after the charset, before any script: a static host sends no header of ours. */
function withOriginTrialMeta(html: string, token: string): string {
  const charset = /<meta charset="UTF-8"\s*>/i
  if (!charset.test(html))
    throw new Error('index.html has no <meta charset> to put the origin-trial token after')
  return html.replace(charset, (tag) => `${tag}<meta http-equiv="origin-trial" content="${token}">`)
}

/**
 * `npm run build:cdn` (Vite's mode `cdn`): a dist/ that a static host serves as it is, in front of a
 * hosted Supabase project. What the Node server does at start-up is done here: SITE_URL written
 * into every page and file in place of the placeholder, the anon key into the page's meta tag; and
 * the 404 page is `404.html`, the name Cloudflare Pages, Netlify, GitHub Pages and S3 look for.
 * WEBMCP_ORIGIN_TRIAL_TOKEN, when set, goes into the page as a meta tag, as the server sends it as
 * a header.
 */
export function staticHostPlugin(): Plugin {
  let values: Record<(typeof REQUIRED)[number], string> | undefined
  let originTrialToken: string | undefined
  return {
    name: 'lab:static-host',
    apply: 'build',
    enforce: 'post',
    configResolved(config) {
      const env = loadEnv(config.mode, config.envDir || config.root, [...REQUIRED, ORIGIN_TRIAL])
      const missing = REQUIRED.filter((name) => !env[name])
      if (missing.length > 0) {
        // A setting left out, not a fault in the build: the one line, without Vite's "error during
        // build:" and a stack trace, which a thrown error would get. Nothing has started yet.
        config.logger.error(
          `npm run build:cdn needs ${missing.join(', ')}: the address the site is served at and the hosted ` +
            'Supabase project it calls (docs/deploy.md, "The static site on a CDN").',
        )
        process.exit(1)
      }
      values = {
        SITE_URL: siteUrlOf(env.SITE_URL ?? ''),
        VITE_SUPABASE_URL: env.VITE_SUPABASE_URL ?? '',
        VITE_SUPABASE_ANON_KEY: env.VITE_SUPABASE_ANON_KEY ?? '',
      }
      originTrialToken = originTrialTokenOf(env[ORIGIN_TRIAL])
    },
    generateBundle: {
      // After the prerendered pages and the agent files are in the bundle.
      order: 'post',
      handler(_options, bundle) {
        const { SITE_URL, VITE_SUPABASE_ANON_KEY } = values ?? {}
        for (const output of Object.values(bundle)) {
          if (output.type !== 'asset' || typeof output.source !== 'string') continue
          output.source = output.source
            .replaceAll(SITE_URL_PLACEHOLDER, SITE_URL ?? '')
            .replaceAll(ANON_KEY_PLACEHOLDER, VITE_SUPABASE_ANON_KEY ?? '')
            // A static host has no server of ours to send confirmations.
            .replaceAll(CONFIRM_SIGNUPS_PLACEHOLDER, 'off')
        }
        const home = bundle['index.html']
        if (originTrialToken && home?.type === 'asset')
          home.source = withOriginTrialMeta(String(home.source), originTrialToken)
        const notFound = bundle['404/index.html']
        if (notFound?.type !== 'asset') return
        delete bundle['404/index.html']
        this.emitFile({ type: 'asset', fileName: '404.html', source: notFound.source })
      },
    },
  }
}
