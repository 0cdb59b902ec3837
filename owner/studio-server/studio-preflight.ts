import type { Context } from 'hono'
import type { Database } from '../../server/admin/runtime'
import {
  askPreflight,
  type CheckLine,
  lastRun,
  type PreflightRun,
  readMailSettings,
} from '../../server/admin/sending'
import { actorOf } from './studio-actor'

/**
 * The studio's deliverability preflight (issue 66, item 4): the last run the running server
 * answered, whoever asked it (`waitlist preflight`, a batch's own check, the studio), with each
 * check's state, the record read and what to publish; and a POST that asks the running server for
 * one now, as `waitlist preflight` does (ADR 120). The invite panel and the Settings page show it.
 */
export const studioPreflight = (db: Database) => ({
  last: async (c: Context) => {
    const [run, settings] = await Promise.all([lastRun(db), readMailSettings(db)])
    return c.json(preflightJson(run, settings.senderConfigured))
  },
  run: async (c: Context) => {
    const settings = await readMailSettings(db)
    // No server that sends has started: none would answer, and the page would wait 20 s to learn it.
    if (!settings.senderConfigured) return c.json(preflightJson(await lastRun(db), false))
    const answer = await askPreflight(db, actorOf(c).name)
    if ('run' in answer) return c.json(preflightJson(answer.run, true))
    return c.json({ ...preflightJson(undefined, true), lines: answer.noAnswer })
  },
})

/** The page's view of a run: when, for which sender, whether it passed, and its lines; none yet is `checkedAt: null`. */
export interface PreflightJson {
  checkedAt: string | null
  mailFrom: string | null
  passed: boolean
  lines: CheckLine[]
  /** Whether any server with SMTP_URL has started on this database: without one, nothing answers. */
  senderConfigured: boolean
}

function preflightJson(run: PreflightRun | undefined, senderConfigured: boolean): PreflightJson {
  return {
    checkedAt: run ? run.checkedAt.toISOString() : null,
    mailFrom: run?.mailFrom ?? null,
    passed: run?.passed ?? false,
    lines: run?.lines ?? [],
    senderConfigured,
  }
}
