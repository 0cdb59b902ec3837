/**
 * What PostgreSQL's programs (initdb, postgres) inherit: the search path, the locale and the time
 * zone. Nothing else of the server's own environment (JWT_SECRET, SIGNUP_WEBHOOK_SECRET, a webhook
 * URL whose path is a secret), which /proc/PID/environ would show to anyone who can read it.
 */
export function clusterEnvironment(source: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { PATH: source.PATH ?? '/usr/local/bin:/usr/bin:/bin' }
  for (const [name, value] of Object.entries(source)) {
    if (value === undefined) continue
    if (name === 'TZ' || name === 'LANG' || name === 'LANGUAGE' || name.startsWith('LC_')) env[name] = value
  }
  // Windows needs these to start a process at all.
  if (process.platform === 'win32')
    for (const name of ['SystemRoot', 'TEMP', 'TMP']) if (source[name]) env[name] = source[name]
  return env
}
