import { readFile } from 'node:fs/promises'
import { createServer, type Socket } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import { afterAll, describe, expect, it } from 'vitest'
import { startTestServer, type TestServer } from '../../harness/test-server'
import { runCli } from '../../harness/waitlist-cli'
import { clusterFiles, readPostmasterPid } from '../../server/db/embedded/cluster-files'
import { healthy, insertStatus } from '../reliability/support'
import { startWebhookReceiver } from '../support/webhook-receiver'

/**
 * Takes a port PostgreSQL left and asks every client for its password in clear text
 * (AuthenticationCleartextPassword: 'R', length 8, code 3), recording what comes back.
 */
async function squat(port: number) {
  const received: Buffer[] = []
  let connections = 0
  const server = createServer((socket: Socket) => {
    connections++
    let greeted = false
    socket.on('data', (chunk) => {
      received.push(chunk)
      if (greeted) return
      greeted = true
      const ask = Buffer.alloc(9)
      ask.write('R', 0)
      ask.writeInt32BE(8, 1)
      ask.writeInt32BE(3, 5)
      socket.write(ask)
    })
    socket.on('error', () => {})
  })
  for (let attempt = 0; ; attempt++) {
    const bound = await new Promise<boolean>((resolve) => {
      server.once('error', () => resolve(false))
      server.listen(port, '127.0.0.1', () => resolve(true))
    })
    if (bound) break
    if (attempt > 200) throw new Error(`port ${port} never came free`)
    await sleep(5)
  }
  return {
    connections: () => connections,
    heard: () => Buffer.concat(received).toString('latin1'),
    close: () => new Promise((resolve) => server.close(resolve)),
  }
}

describe('a program that takes PostgreSQL’s port after PostgreSQL dies', () => {
  let server: TestServer | undefined
  const closers: (() => Promise<unknown>)[] = []
  afterAll(async () => {
    await server?.cleanup()
    for (const close of closers) await close()
  })

  it('never hears the password: not from the pool, LISTEN reconnects or the CLI', async () => {
    const receiver = await startWebhookReceiver()
    closers.push(() => receiver.close())
    // Notifications on, so a LISTEN connection is open too and reconnects after the crash.
    server = await startTestServer({ env: { SIGNUP_WEBHOOK_URL: receiver.url } })
    expect(await insertStatus(server, 'before.crash@example.com')).toBe(201)
    const files = clusterFiles(server.dataDir)
    const holder = await readPostmasterPid(files.cluster)
    if (!holder) throw new Error('no postmaster.pid')
    const password = (await readFile(files.password, 'utf8')).trim()

    process.kill(holder.pid, 'SIGKILL')
    const squatter = await squat(holder.port)
    closers.push(squatter.close)
    // Requests while PostgreSQL is down and once it is back: each makes the pool connect.
    for (let i = 0; i < 20 && !/PostgreSQL is back/.test(server.output()); i++) {
      await healthy(server)
      await sleep(250)
    }
    expect(server.output()).toMatch(/PostgreSQL is back/)
    expect(server.output()).toMatch(/Another program took 127\.0\.0\.1:\d+ while PostgreSQL was down/)
    expect(await insertStatus(server, 'after.crash@example.com')).toBe(201)
    expect(await healthy(server)).toBe(true)
    await sleep(2500) // LISTEN's reconnect pause
    const cli = { DATA_DIR: server.dataDir }
    expect((await runCli(cli, 'count')).stdout.trim()).toBe('2')
    const url = await runCli(cli, 'url')
    expect(url.code).toBe(1)
    expect(url.stderr).toMatch(/listens on its private socket only/)

    expect(squatter.heard()).not.toContain(password)
    expect(squatter.connections()).toBe(0)
  })
})
