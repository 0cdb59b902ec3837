import { loadDotEnvFile } from '../../server/boot/dot-env-file'
import { runCommandLine } from './run-command'

// The `waitlist` process: .env read as the server reads it, then one command line.
loadDotEnvFile()
runCommandLine(process.argv.slice(2)).then((code) => process.exit(code))
