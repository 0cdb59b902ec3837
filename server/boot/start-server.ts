import type { Server } from 'node:http'
import { mailWords } from '../../contract/site-config'
import { SignedAgents } from '../agents/verify-agent'
import { type ApiKeys, keySourcesOf, loadApiKeys } from '../auth/api-keys'
import { backupKeepsDays, startBackupIfSet } from '../backup/continuous-backup'
import { createLogger, keyEmailMask, type Logger } from '../base/log'
import { normalizeSiteUrl } from '../base/normalize-site-url'
import { DIST_DIR } from '../base/paths'
import { setWalSpool } from '../db/cluster-backup'
import type { Database } from '../db/database'
import { type OpenedDatabase, openDatabase } from '../db/open-database'
import { type AppProtections, createApp } from '../http/app'
import { HttpSourceCounter } from '../http/http-source-counter'
import type { SecurityHeaderOptions } from '../http/middleware/security-headers'
import { loadSchemaCache } from '../http/rest/table-sql'
import { ownOrigins, restOrigins } from '../http/site-cors'
import { fillInSiteUrl } from '../http/site-url'
import { loadStaticSite, type StaticSite } from '../http/static-site'
import { loadMailEventProviders, type MailEventProviders } from '../mail/events/event-settings'
import { linkKeys } from '../mail/messages/link-seals'
import type { SendHealthGate } from '../mail/queue/send-health'
import { checkMailConfig, sendHealthOf, startMail } from '../mail/start-mail'
import { loadMailTransportConfig, type MailTransportConfig } from '../mail/transport-config'
import { MemoryStore } from '../rate-limit/memory-store'
import { PostgresStore } from '../rate-limit/postgres-store'
import { addressPolicyOf } from '../waitlist/address-policy/address-policy'
import { startConfirmExpiry } from '../waitlist/confirmations'
import { registerDoorWords } from '../waitlist/consent/consent-record'
import type { DoorWords } from '../waitlist/consent/door-words'
import { writeSuppressionKey } from '../waitlist/consent/suppression'
import { bounceRefused } from '../waitlist/entry-status'
import { warmSignupConnections } from '../waitlist/signup'
import { startWebhooks } from '../webhooks/start-webhooks'
import type { ServerEnv } from './env'
import { listen, type Pages } from './listen'
import { shippedExamplesLine } from './shipped-examples'
import { teamStudioMount } from './team-studio-mount'
import { startingUp, warmUpListening } from './warming-up'

export interface RunningServer {
  url: string
  anonKey: string
  serviceKey: string
  /** Stops accepting, lets in-flight requests finish, then closes the database (and stops the embedded cluster). */
  stop(): Promise<void>
}

/** What the pages are given at start-up: the anon key, and whether signups are confirmed by mail. */
export interface PageSettings {
  anonKey: string
  confirmSignups: boolean
}

export interface StartOptions {
  distDir?: string
  /**
   * Settles when dist is built. The database starts meanwhile: on a first start initdb and the
   * build run side by side instead of one after the other.
   */
  siteBuilt?: Promise<void>
  /**
   * `npm run dev`: what serves the pages (Vite, with hot reload on this server's own socket), in
   * place of the built site; the app keeps every path it has a route for.
   */
  pages?: (server: Server, page: PageSettings) => Promise<Pages>
  /** Something under the server broke beyond repair (the embedded cluster cannot be restarted). */
  onFatal(error: Error): void
}

/**
 * The whole server from the env, for `npm start` and `npm run dev` alike: the database, the keys,
 * the log's mask, the app listening, counting by source, and the workers (notifications, mail,
 * the expiry of unconfirmed entries).
 */
export async function startServer(env: ServerEnv, options: StartOptions): Promise<RunningServer> {
  const log = createLogger(env.LOG_LEVEL)
  // Before the cluster starts: its archive_timeout holds only while the spool exists.
  if (!env.DATABASE_URL) await setWalSpool(env.DATA_DIR, env.BACKUP_URL !== undefined)
  const database = await openDatabase({
    databaseUrl: env.DATABASE_URL,
    dataDir: env.DATA_DIR,
    log: (message) => log.info(message),
    onClusterLost: (error) => options.onFatal(error),
  })
  try {
    // After the database has checked DATA_DIR (its owner, its mode), where the mail settings' files may be.
    const mail = await loadMailTransportConfig(env)
    checkMailConfig(env, mail)
    const mailEvents = await loadMailEventProviders(env)
    // After the database: with DATABASE_URL the servers sharing it keep their secret there.
    const keys = await loadApiKeys({ ...keySourcesOf(env), db: database.db })
    keyEmailMask(keys.secret)
    // The key of the erased addresses' hash, and the words each door shows, once per version.
    await writeSuppressionKey(database.db, keys.secret)
    const consentWords = await registerDoorWords(database.db, confirmsSignups(env, mail))
    const examples = shippedExamplesLine(env.BETA_URL ?? mailWords.betaUrl)
    if (examples) log.info(examples)
    return await serve(env, options, { log, keys, database, mail, mailEvents, consentWords })
  } catch (error) {
    await database.close()
    throw error
  }
}

interface Opened {
  log: Logger
  keys: ApiKeys
  database: OpenedDatabase
  mail: MailTransportConfig
  mailEvents: MailEventProviders
  consentWords: DoorWords
}

/** Whether signups are confirmed by mail: CONFIRM_SIGNUPS, with mail to send it by. */
const confirmsSignups = (env: ServerEnv, mail: MailTransportConfig) => env.CONFIRM_SIGNUPS && !!mail

/** With the database open: the app, listening, the site's own URL filled in, then notifications. */
async function serve(
  env: ServerEnv,
  options: StartOptions,
  { log, keys, database, mail, mailEvents, consentWords }: Opened,
): Promise<RunningServer> {
  for (const migration of database.applied) log.info(`Applied migration ${migration}`)
  // The pool's connections opened and readied while the rest starts, before it listens (ADR 111).
  const warming = warmSignupConnections(database.db, log)
  const schema = await loadSchemaCache(database.db)
  const page: PageSettings = { anonKey: keys.anonKey, confirmSignups: confirmsSignups(env, mail) }
  const site = options.pages ? undefined : await builtSite(options, page)
  // Checked before listening, so a bad SITE_URL stops start-up before anything is served.
  const publicUrl = env.SITE_URL === undefined ? undefined : normalizeSiteUrl(env.SITE_URL)
  // Known once it listens: the pages that may call /mcp, and those the REST API grants CORS.
  const origins = { site: [] as string[], rest: [] as string[], listening: '' }
  const { db } = database
  const protections = protectionsOf(env, db)
  const sources = await startSourceCounter(env, db, log, () => origins.site)
  const sendHealth = sendHealthOf(env, db, log)
  const siteUrl = () => publicUrl ?? origins.listening
  const studio = teamStudioMount({ db, siteUrl, ...protections, fallback: env, backup: env })
  const security = securityOf(env, site?.scriptHashes ?? [])
  const startUp = startingUp(env.WARM_UP_MS)
  const app = createApp({
    ...{ db, keys, schema, site, log, protections, sources, mailEvents, sendHealth, consentWords },
    ...{ siteOrigins: () => origins.site, restOrigins: () => origins.rest },
    webmcpOriginTrialToken: env.WEBMCP_ORIGIN_TRIAL_TOKEN,
    addressPolicy: addressPolicyOf(env),
    agents: new SignedAgents({ trust: env.SIGNATURE_AGENTS, db, siteOrigins: () => origins.site }),
    confirmSignups: page.confirmSignups,
    backupDays: backupKeepsDays(env),
    ...{ studio, security, startUp },
  })
  const { pages } = options
  const pagesFor = pages && ((server: Server) => pages(server, page))
  const connections = await warming
  const listening = await listen(app, env, security, pagesFor).catch(async (error) => {
    await sources?.stop() // its timer, before the database closes under it
    throw error
  })
  const { url } = listening
  // Synchronous and with no await since listening, so done before the first request is read.
  if (site) fillInSiteUrl(site, publicUrl ?? url)
  origins.listening = url
  origins.site = ownOrigins(url, publicUrl ?? url)
  origins.rest = restOrigins(publicUrl ?? url, env.CORS_ORIGINS)
  if (!publicUrl) log.info(withoutSiteUrl(origins.site))
  const serviceKey = keys.serviceKey
  await warmUpListening(startUp, { url, log, connections, serviceKey, devPages: !!options.pages })
  const siteUrlNow = normalizeSiteUrl(publicUrl ?? url)
  const workers = await startWorkers(env, { db, log, mail, keys, siteUrl: siteUrlNow, health: sendHealth })
  if (keys.generated) announceGeneratedKey(log, keys)
  const stop = () => stopServing(listening, protections, sources, workers, database)
  return { url, anonKey: keys.anonKey, serviceKey: keys.serviceKey, stop }
}

/** In order: no new request, the limiter's sweep, the counts, the workers, then the database. */
async function stopServing(
  listening: { close(): Promise<void> },
  protections: AppProtections,
  sources: HttpSourceCounter | undefined,
  workers: { stop(): Promise<void> },
  database: OpenedDatabase,
): Promise<void> {
  await listening.close()
  protections.rateLimiter?.close?.()
  // The last seconds' counts, once no request can add to them.
  await sources?.stop()
  await workers.stop()
  await database.close()
}

/**
 * Without SITE_URL the server knows only the addresses it listens on: they alone may write, and
 * every link names the first. Behind a proxy or on the internet, that is never the visitors' address.
 */
function withoutSiteUrl(origins: readonly string[]): string {
  return (
    `SITE_URL is not set: only pages at ${origins.join(', ')} may sign up, and links name the first. ` +
    "On the internet, set SITE_URL to the site's public address."
  )
}

/** dist/, once built, with the anon key and the toast's words in its pages. */
async function builtSite(options: StartOptions, page: PageSettings): Promise<StaticSite> {
  await options.siteBuilt
  return loadStaticSite(options.distDir ?? DIST_DIR, page.anonKey, page.confirmSignups)
}

interface Workers {
  db: Database
  log: Logger
  mail: MailTransportConfig
  keys: ApiKeys
  siteUrl: string
  health: SendHealthGate
}

/** What runs beside the HTTP server: the webhooks, mail (whose refusals bounce entries), and the expiry of unconfirmed entries. */
async function startWorkers(
  env: ServerEnv,
  { db, log, mail, keys, siteUrl, health }: Workers,
): Promise<{ stop(): Promise<void> }> {
  const deliverer = await startWebhooks(env, db, log)
  const mailSender = await startMail(env, mail, {
    ...{ db, log, siteUrl, health },
    keys: linkKeys(keys.secret),
    refused: bounceRefused,
    warmUpMs: env.WARM_UP_MS,
  })
  const expiry = startConfirmExpiry(db, log, {
    days: env.CONFIRM_EXPIRE_DAYS,
    everyMs: env.CONFIRM_EXPIRE_CHECK_MS,
  })
  const backup = await startBackupIfSet(env, db, log)
  return {
    async stop() {
      await backup?.stop()
      await deliverer?.stop()
      await mailSender?.stop()
      await expiry?.stop()
    },
  }
}

/**
 * The rate limit, the proxy header and the database queue, as the env sets them. Several servers may
 * share a DATABASE_URL, so its buckets live there; the embedded database has one server, whose memory
 * is the same limit for less.
 */
function protectionsOf(env: ServerEnv, db: Database): AppProtections {
  const limits = { perMinute: env.RATE_LIMIT_PER_MINUTE, burst: env.RATE_LIMIT_BURST }
  const shared = env.DATABASE_URL !== undefined
  const rateLimiter =
    limits.perMinute === 0 ? undefined : shared ? new PostgresStore(db, limits) : new MemoryStore(limits)
  return {
    rateLimiter,
    trustProxyHeader: env.TRUST_PROXY_HEADER,
    dbQueueLimit: env.DB_QUEUE_LIMIT,
  }
}

/** Counting by source, with the day's salt loaded before the first request (COUNT_SOURCES). */
async function startSourceCounter(
  env: ServerEnv,
  db: OpenedDatabase['db'],
  log: Logger,
  siteOrigins: () => readonly string[],
): Promise<HttpSourceCounter | undefined> {
  if (!env.COUNT_SOURCES) return undefined
  const trustProxyHeader = env.TRUST_PROXY_HEADER
  const sources = new HttpSourceCounter({
    db,
    log,
    trustProxyHeader,
    siteOrigins,
    flushMs: env.COUNT_SOURCES_FLUSH_MS,
  })
  await sources.start()
  return sources
}

function securityOf(env: ServerEnv, scriptHashes: string[]): SecurityHeaderOptions {
  return {
    hsts: env.HSTS,
    trustProxy: env.TRUST_PROXY_HEADER !== undefined,
    connectOrigins: env.VITE_SUPABASE_URL ? [new URL(env.VITE_SUPABASE_URL).origin] : [],
    scriptHashes,
  }
}

function announceGeneratedKey(log: Logger, keys: ApiKeys): void {
  // A key on a terminal is seen once; one in a log stays in every log collector it reaches.
  // Three events, one line each: the logger writes a line break inside a message as `\n`.
  log.info(`Generated a JWT secret, kept in ${keys.keptIn} (keep it private).`)
  if (!process.stdout.isTTY) {
    log.info('The service_role key is shown only on a terminal, never in logs: npm run waitlist -- keys')
    return
  }
  log.info('service_role key (shown once; also: npm run waitlist -- keys):')
  log.info(`  ${keys.serviceKey}`)
}
