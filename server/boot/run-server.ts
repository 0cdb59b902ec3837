import { createLogger } from '../base/log'
import { StartupError } from '../base/startup-error'
import { dataDirNote } from './default-data-dir'
import { loadDotEnvFile } from './dot-env-file'
import { ConfigError, loadServerEnv } from './env'
import { type StartOptions, startServer } from './start-server'

type Started = Awaited<ReturnType<typeof startServer>>

// Errors can quote a row (a constraint's detail names the address): always through the masking logger.
const fatal = createLogger('error')

/**
 * The process around the server, for `npm start` (main.ts) and `npm run dev` (dev.ts) alike: the env,
 * the server, "Serving <url>", and a drain on the signals. What differs comes in as options.
 */
export function runServer(optionsFor: () => Omit<StartOptions, 'onFatal'>): void {
  // Something thrown that nobody handles means state we cannot reason about: log it and exit
  // non-zero so a supervisor restarts a clean process, instead of limping on.
  process.on('uncaughtException', (error) => {
    fatal.error('Fatal: uncaught exception', error)
    process.exit(1)
  })
  process.on('unhandledRejection', (reason) => {
    fatal.error('Fatal: unhandled promise rejection', reason)
    process.exit(1)
  })
  main(optionsFor).catch((error) => {
    if (error instanceof ConfigError || error instanceof StartupError) {
      console.error(error.message)
    } else {
      fatal.error('Could not start the server:', error)
    }
    process.exit(1)
  })
}

async function main(optionsFor: () => Omit<StartOptions, 'onFatal'>) {
  loadDotEnvFile()
  const env = loadServerEnv()
  const note = dataDirNote(env.DATA_DIR)
  if (note) console.log(note)
  // The signals are ours from the first moment: a Ctrl-C during the migrations or the warm-up
  // killed Node and left PostgreSQL running (it has its own process group) until the next start.
  let server: Started | undefined
  let asked: string | undefined
  const shutdown = (signal: string) => {
    if (!asked && server) void drainAndExit(server, signal)
    else if (!asked) console.log(`${signal}: stopping once the start is done (again to stop at once)...`)
    else if (!server) {
      console.error(`${signal} again: stopping now; the next start shuts PostgreSQL down first.`)
      process.exit(1)
    }
    asked ??= signal
  }
  process.on('SIGTERM', () => shutdown('SIGTERM'))
  process.on('SIGINT', () => shutdown('SIGINT'))
  // A closed terminal or a lost SSH session: without this Node would die at once and leave
  // PostgreSQL running (it has its own process group) until the next start.
  process.on('SIGHUP', () => shutdown('SIGHUP'))
  server = await startServer(env, {
    ...optionsFor(),
    onFatal(error) {
      fatal.error(`Fatal: ${error.message}`)
      process.exit(1)
    },
  })
  if (asked) return drainAndExit(server, asked)
  console.log(`Serving ${server.url}`)
}

/** Finishes the requests in flight, closes the database (PostgreSQL with it) and exits 0. */
async function drainAndExit(server: Started, signal: string) {
  console.log(`${signal}: finishing in-flight requests, then closing the database...`)
  const timer = setTimeout(() => {
    console.error('Shutdown took longer than 10 s; exiting anyway.')
    process.exit(1)
  }, 10_000)
  await server.stop()
  clearTimeout(timer)
  process.exit(0)
}
