import { mountWithoutSockets } from '../support/no-socket-mount'
import { describeSocketFallback } from '../support/socket-fallback-cases'

// As tests/security/socket-fallback.test.ts, on the FUSE mount s3fs and sshfs users have (ENOSYS).
// In npm run test:slow, which .ci/run equips with python3-fusepy.
describeSocketFallback(
  'the socket directory when DATA_DIR cannot hold a socket (a real FUSE mount without mknod)',
  mountWithoutSockets,
  'ENOSYS',
)
