import { generateKeyPairSync, randomUUID } from 'node:crypto'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ConfigError } from '../../server/base/startup-error'
import { loadDkimKey } from '../../server/mail/dkim-signer'
import { composeMessage } from '../../server/mail/messages/compose-message'
import { linkKeys } from '../../server/mail/messages/link-seals'
import { checkUnsubscribe } from '../../server/mail/preflight/unsubscribe-check'
import { buildMessage } from '../../server/mail/smtp-transport'
import { parseMailFrom } from '../../server/mail/transport-config'
import { dkimKeyPair } from '../support/mail-dns'

/**
 * The server's DKIM key (issue 66): read once at start, refused whole when it cannot sign (a
 * selector without a key, a key nodemailer cannot sign with, a file that cannot be read), and the
 * message as built carries a signature over RFC 8058's two headers, which the preflight reads.
 */
const rsa = dkimKeyPair()
const from = parseMailFrom('Tessel Labs <beta@tessel-labs.org>')
let scratch: string

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'dkim-'))
})

afterAll(async () => {
  await rm(scratch, { recursive: true, force: true })
})

describe('the server’s DKIM key', () => {
  it('signs with d= MAIL_FROM’s domain, its p= the public half, from the variable or a file', async () => {
    const key = await loadDkimKey(
      { DKIM_SELECTOR: 's1', DKIM_PRIVATE_KEY: rsa.privateKey },
      'tessel-labs.org',
    )
    expect(key).toMatchObject({ domain: 'tessel-labs.org', selector: 's1', publicKey: rsa.publicKey })
    // An env file's one-line PEM, its breaks written \n.
    const oneLine = rsa.privateKey.trim().replaceAll('\n', '\\n')
    const fromEnvFile = await loadDkimKey(
      { DKIM_SELECTOR: 's1', DKIM_PRIVATE_KEY: oneLine },
      'tessel-labs.org',
    )
    expect(fromEnvFile?.publicKey).toBe(rsa.publicKey)
    const file = join(scratch, 'dkim.pem')
    await writeFile(file, rsa.privateKey, { mode: 0o600 })
    const fromFile = await loadDkimKey(
      { DKIM_SELECTOR: 's1', DKIM_PRIVATE_KEY_FILE: file },
      'tessel-labs.org',
    )
    expect(fromFile?.publicKey).toBe(rsa.publicKey)
    expect(await loadDkimKey({}, 'tessel-labs.org')).toBeUndefined()
  })

  it('stops start-up on a half or unusable setting, naming the variable', async () => {
    const ed25519 = generateKeyPairSync('ed25519')
      .privateKey.export({ type: 'pkcs8', format: 'pem' })
      .toString()
    const cases: [Record<string, string>, RegExp][] = [
      [{ DKIM_SELECTOR: 's1' }, /DKIM_SELECTOR is set but no key/],
      [{ DKIM_PRIVATE_KEY: rsa.privateKey }, /DKIM_PRIVATE_KEY is set but DKIM_SELECTOR is not/],
      [{ DKIM_SELECTOR: 's1', DKIM_PRIVATE_KEY: ed25519 }, /DKIM_PRIVATE_KEY must be an RSA private key/],
      [
        { DKIM_SELECTOR: 's1', DKIM_PRIVATE_KEY_FILE: join(scratch, 'none.pem') },
        /cannot be read \(ENOENT\)/,
      ],
      [
        { DKIM_SELECTOR: 's1', DKIM_PRIVATE_KEY: rsa.privateKey, DKIM_PRIVATE_KEY_FILE: join(scratch, 'x') },
        /not both/,
      ],
    ]
    for (const [env, words] of cases) {
      const refused = await loadDkimKey(env, 'tessel-labs.org').catch((error: unknown) => error)
      expect(refused, JSON.stringify(Object.keys(env))).toBeInstanceOf(ConfigError)
      expect(String(refused)).toMatch(words)
    }
  })

  it('builds the invitation signed over List-Unsubscribe and List-Unsubscribe-Post', async () => {
    const key = await loadDkimKey(
      { DKIM_SELECTOR: 's1', DKIM_PRIVATE_KEY: rsa.privateKey },
      'tessel-labs.org',
    )
    if (!from || !key) throw new Error('the sender and the key were read above')
    const context = {
      siteUrl: 'https://tessel-labs.org',
      betaUrl: 'https://beta.tessel-labs.org/',
      keys: linkKeys(new TextEncoder().encode('k'.repeat(64))),
    }
    const message = composeMessage(context, {
      kind: 'invitation',
      uuid: randomUUID(),
      email: 'ada@example.com',
      queuedAt: new Date(),
      messageDomain: from.domain,
    })
    const signed = await buildMessage(message, from, key)
    expect(signed.toString('latin1')).toMatch(
      /^DKIM-Signature: v=1; a=rsa-sha256; c=relaxed\/relaxed; d=tessel-labs.org;/m,
    )
    expect(checkUnsubscribe(signed, context.siteUrl, true).map((line) => line.status)).toEqual([
      'pass',
      'pass',
    ])
    // Unsigned, the same message cannot pass as signed: the check reads the signature, not the setting.
    const unsigned = await buildMessage(message, from)
    expect(checkUnsubscribe(unsigned, context.siteUrl, true)[0]?.status).toBe('fail')
  })
})
