import { readFile } from 'node:fs/promises'
import { afterAll, describe, expect, it } from 'vitest'
import { postmasterPid, startTestServer, type TestServer } from '../../harness/test-server'

const SECRETS = {
  JWT_SECRET: 'jwt-secret-that-stays-in-node-'.padEnd(48, 'j'),
  SIGNUP_WEBHOOK_SECRET: 'whsec_c2VjcmV0LXRoYXQtc3RheXMtaW4tbm9kZQ==',
  // For Slack, the path of the URL is the secret.
  SIGNUP_WEBHOOK_URL: 'http://127.0.0.1:9/services/T000/B000/secretpathstaysinnode',
}

describe("PostgreSQL's environment", () => {
  let server: TestServer | undefined
  afterAll(() => server?.cleanup())

  it("holds PATH, the locale and TZ, and nothing of the server's own", async () => {
    server = await startTestServer({ env: { ...SECRETS, TZ: 'Europe/Paris', LC_ALL: 'C.UTF-8' } })
    const pid = await postmasterPid(server.dataDir)
    expect(pid).toBeGreaterThan(0)
    const environ = await readFile(`/proc/${pid}/environ`, 'utf8')
    const names = environ
      .split('\0')
      .filter(Boolean)
      .map((entry) => entry.slice(0, entry.indexOf('=')))
    for (const [name, value] of Object.entries(SECRETS)) {
      expect(names).not.toContain(name)
      expect(environ).not.toContain(value)
    }
    expect(environ).toContain('TZ=Europe/Paris')
    expect(environ).toContain('LC_ALL=C.UTF-8')
    // PostgreSQL adds its own (PGDATA, PG_GRANDPARENT_PID…); nothing else comes from the server.
    expect(names.filter((name) => !/^(PATH|TZ|LANG|LANGUAGE|LC_\w+|PG\w+)$/.test(name))).toEqual([])
  })
})
