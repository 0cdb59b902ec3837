import { startDebianCluster } from '../support/debian-postgres'
import { describeManagedOwner } from '../support/managed-owner-checks'

// Debian's PostgreSQL (15 on bookworm), installed by .ci/run: the version a lab's own server or
// an older managed plan runs, where CREATEROLE still reaches every role.
describeManagedOwner("15 (Debian's)", async () => {
  const cluster = await startDebianCluster()
  return { adminUrl: cluster.adminUrl, urlFor: cluster.urlFor, stop: () => cluster.stop() }
})
