import { readdirSync, readFileSync, readlinkSync } from 'node:fs'

/**
 * Which of these processes holds the TCP connection from 127.0.0.1:`localPort` to `remotePort`,
 * read from Linux's /proc (the tests run as root, so every process's descriptors can be read):
 * the socket's inode from /proc/net/tcp, then the process with a descriptor on it.
 */
export function socketOwner(localPort: number, remotePort: number, pids: number[]): number | undefined {
  const inodes = new Set<string>()
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6'])
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
      const [, local = '', remote = '', , , , , , , inode = ''] = line.trim().split(/\s+/)
      const port = (address: string) => Number.parseInt(address.split(':').at(-1) ?? '', 16)
      if (port(local) === localPort && port(remote) === remotePort) inodes.add(inode)
    }
  return pids.find((pid) =>
    descriptors(pid).some((fd) =>
      inodes.has(/^socket:\[(\d+)\]$/.exec(linked(`/proc/${pid}/fd/${fd}`))?.[1] ?? ''),
    ),
  )
}

/** A process's open descriptors; none once it has exited. */
function descriptors(pid: number): string[] {
  try {
    return readdirSync(`/proc/${pid}/fd`)
  } catch {
    return []
  }
}

/** What a descriptor points at ('' if it closed meanwhile). */
function linked(path: string): string {
  try {
    return readlinkSync(path, 'utf8')
  } catch {
    return ''
  }
}
