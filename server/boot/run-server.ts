import { createLogger } from '../base/log'
import { StartupError } from '../base/startup-error'
import { dataDirNote } from './default-data-dir'
import { loadDotEnvFile } from './dot-env-file'
import { ConfigError, loadServerEnv } from './env'
import { type StartOptions, startServer } from './start-server'

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
  const server = await startServer(env, {
    ...optionsFor(),
    onFatal(error) {
      fatal.error(`Fatal: ${error.message}`)
      process.exit(1)
    },
  })
  console.log(`Serving ${server.url}`)

  let stopping = false
  const shutdown = async (signal: string) => {
    if (stopping) return
    stopping = true
    console.log(`${signal}: finishing in-flight requests, then closing the database...`)
    const timer = setTimeout(() => {
      console.error('Shutdown took longer than 10 s; exiting anyway.')
      process.exit(1)
    }, 10_000)
    await server.stop()
    clearTimeout(timer)
    process.exit(0)
  }
  process.on('SIGTERM', () => void shutdown('SIGTERM'))
  process.on('SIGINT', () => void shutdown('SIGINT'))
  // A closed terminal or a lost SSH session: without this Node would die at once and leave
  // PostgreSQL running (it has its own process group) until the next start.
  process.on('SIGHUP', () => void shutdown('SIGHUP'))
}
