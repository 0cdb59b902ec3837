import { runningServerTcpUrl } from '../../server/admin/runtime'
import { type ApiKeys, keySourcesOf, linkKeys, loadApiKeys } from '../../server/admin/settings'
import { loadServerEnv } from '../../server/boot/owner-assembly'
import { withDatabase } from './with-database'

/**
 * The installation's keys, as the server has them: from JWT_SECRET, else with DATABASE_URL from
 * that database (opened for this), else from DATA_DIR without starting the embedded cluster.
 */
export async function installationKeys(): Promise<ApiKeys> {
  const env = loadServerEnv()
  const sources = keySourcesOf(env)
  if (env.JWT_SECRET || !env.DATABASE_URL) return loadApiKeys(sources)
  return withDatabase((db) => loadApiKeys({ ...sources, db }))
}

/**
 * `keys`: the anon and service_role keys for this JWT_SECRET, DATABASE_URL or DATA_DIR, and the key
 * the beta product checks invite codes with (docs/invitations.md), derived from the same secret.
 */
export async function keysCommand(): Promise<number> {
  const keys = await installationKeys()
  const inviteCode = linkKeys(keys.secret).inviteCode.toString('base64url')
  console.log(`anon:         ${keys.anonKey}\nservice_role: ${keys.serviceKey}\ninvite_code:  ${inviteCode}`)
  return 0
}

/** `url`: the postgres:// address of the embedded cluster a running server started. */
export async function urlCommand(): Promise<number> {
  const env = loadServerEnv()
  if (env.DATABASE_URL) {
    console.error('DATABASE_URL is set: that is the connection string already.')
    return 1
  }
  const url = await runningServerTcpUrl(env.DATA_DIR)
  if (url === undefined) {
    console.error(`No server is running the embedded database in ${env.DATA_DIR}; start it with npm start.`)
    return 1
  }
  if (url === '') {
    console.error(
      'The embedded database listens on its private socket only: another program took its TCP port while ' +
        'it was down. Restart the server to get a TCP address back.',
    )
    return 1
  }
  console.log(url)
  return 0
}
