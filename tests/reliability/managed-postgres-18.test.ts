import { startPostgres } from '../../harness/postgres-cluster'
import { runSql } from '../support/managed-owner'
import { describeManagedOwner } from '../support/managed-owner-checks'

// PostgreSQL 18 from the npm binaries, as a cluster of its own (the suites' clusters keep their
// roles). Debian's PostgreSQL 15 runs the same checks in the slow suite (managed-postgres-15.test.ts).
describeManagedOwner('18 (the embedded binaries)', async () => {
  const cluster = await startPostgres()
  // The suites' template database refers to the API roles; this cluster needs neither.
  await runSql(cluster.url, 'drop database suite_template')
  const [, host = ''] = /^postgres:\/\/[^@]*@([^/]+)\//.exec(cluster.url) ?? []
  return {
    adminUrl: cluster.url,
    urlFor: (user, password, database) =>
      `postgres://${user}:${encodeURIComponent(password)}@${host}/${database}`,
    stop: () => cluster.stop(),
  }
})
