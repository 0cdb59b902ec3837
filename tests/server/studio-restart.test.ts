import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type StudioProcess, startStudioProcess } from '../../harness/studio-process'
import { startTestServer, type TestServer } from '../../harness/test-server'
import { postWaitlist } from '../../harness/waitlist-api'

/**
 * A studio left open on the embedded database: it never holds DATA_DIR, so the server starts while
 * it runs, and it follows the server through a restart, saying "the site is stopped" meanwhile.
 */
describe('a studio that outlives restarts', () => {
  let server: TestServer | undefined
  let studio: StudioProcess
  let dataDir: string
  const summary = async () => {
    const response = await fetch(`${studio.origin}/api/summary`, {
      headers: { 'Sec-Fetch-Site': 'same-origin', Authorization: `Bearer ${studio.token}` },
    })
    return { status: response.status, body: (await response.json()) as Record<string, unknown> }
  }
  /** The studio answers with the list again: no restart of the studio, only of the server. */
  const answersAgain = async () => {
    const deadline = Date.now() + 30_000
    for (;;) {
      const answer = await summary()
      if (answer.status === 200 || Date.now() > deadline) return answer
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  }

  beforeAll(async () => {
    server = await startTestServer()
    dataDir = server.dataDir
    expect((await postWaitlist(server, { email: 'restart@example.com' })).status).toBe(201)
    await server.stop()
    // Started while no server runs, as an owner may leave it open overnight.
    studio = await startStudioProcess({ DATA_DIR: dataDir })
  })
  afterAll(async () => {
    await studio?.stop()
    await server?.cleanup()
  })

  it('says the site is stopped while no server runs, not an error', async () => {
    const answer = await summary()
    expect(answer.status).toBe(503)
    expect(answer.body).toEqual({
      stopped: true,
      error: 'The site is stopped: start it (npm start) and the studio reconnects by itself.',
    })
  })

  it('never keeps the server from starting, and answers once it runs', async () => {
    server = await startTestServer({ dataDir })
    const answer = await answersAgain()
    expect(answer.status).toBe(200)
    expect(answer.body.total).toBe(1)
  })

  it('follows the server through a restart without being restarted itself', async () => {
    await server?.stop()
    expect((await summary()).status).toBe(503)
    server = await startTestServer({ dataDir })
    expect((await postWaitlist(server, { email: 'after-restart@example.com' })).status).toBe(201)
    const answer = await answersAgain()
    expect(answer).toMatchObject({ status: 200, body: { total: 2 } })
    expect(studio.process.exitCode).toBeNull()
  })
})
