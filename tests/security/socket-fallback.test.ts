import { mountBpf } from '../support/bpf-mount'
import { describeSocketFallback } from '../support/socket-fallback-cases'

// Nothing to install: the kernel's bpf file system refuses sockets (EPERM). The FUSE variant
// (ENOSYS, python3-fusepy) is tests/reliability/socket-fallback-fuse.test.ts, in npm run test:slow.
describeSocketFallback(
  'the socket directory when DATA_DIR cannot hold a socket (a real bpffs mount: no mknod)',
  mountBpf,
  'EPERM',
)
