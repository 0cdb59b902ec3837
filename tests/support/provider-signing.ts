import { execFileSync } from 'node:child_process'
import { createHmac, createSign, generateKeyPairSync, randomBytes } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Webhook } from 'standardwebhooks'

/**
 * Each provider's signing, done in the test as the provider does it, with keys made here: what
 * the routes under test must accept, and (with a key or a time changed) refuse.
 */

export const now = () => Math.floor(Date.now() / 1000)

/** A Standard Webhooks / Svix secret: whsec_ and 24 random bytes in base64. */
export const webhookSecret = () => `whsec_${randomBytes(24).toString('base64')}`

/** Standard Webhooks headers (generic), or Svix's (Resend) with prefix 'svix'. */
export function standardHeaders(
  secret: string,
  body: string,
  options: { prefix?: 'webhook' | 'svix'; id?: string; at?: Date } = {},
): Record<string, string> {
  const prefix = options.prefix ?? 'webhook'
  const id = options.id ?? `msg_${randomBytes(8).toString('hex')}`
  const at = options.at ?? new Date()
  return {
    [`${prefix}-id`]: id,
    [`${prefix}-timestamp`]: String(Math.floor(at.getTime() / 1000)),
    [`${prefix}-signature`]: new Webhook(secret).sign(id, at, body),
  }
}

/** SendGrid: an ECDSA P-256 pair; the verification key is the public key, DER, in base64. */
export function sendgridKeys() {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' })
  return {
    verificationKey: publicKey.export({ type: 'spki', format: 'der' }).toString('base64'),
    /** X-Twilio-Email-Event-Webhook-Signature and -Timestamp for this body. */
    headers(body: string, timestamp: number | string = now()): Record<string, string> {
      const signer = createSign('sha256')
      signer.update(`${timestamp}${body}`)
      return {
        'X-Twilio-Email-Event-Webhook-Signature': signer.sign(privateKey).toString('base64'),
        'X-Twilio-Email-Event-Webhook-Timestamp': String(timestamp),
      }
    },
  }
}

/**
 * A secret for each provider, made once for a file, and the server's settings that name them:
 * the generic webhook's, Postmark's Basic auth, Mailgun's signing key, SendGrid's key pair.
 */
export function providerSecrets() {
  const secrets = {
    generic: webhookSecret(),
    postmark: `postmark-hook:${randomBytes(12).toString('hex')}`,
    mailgun: randomBytes(16).toString('hex'),
    sendgrid: sendgridKeys(),
  }
  const env = {
    MAIL_EVENTS_SECRET: secrets.generic,
    MAIL_EVENTS_POSTMARK_AUTH: secrets.postmark,
    MAIL_EVENTS_MAILGUN_KEY: secrets.mailgun,
    MAIL_EVENTS_SENDGRID_KEY: secrets.sendgrid.verificationKey,
  }
  return { ...secrets, env }
}

/** Mailgun: the `signature` object, HMAC-SHA256 of timestamp + token under the signing key. */
export function mailgunSignature(
  key: string,
  timestamp: number | string = now(),
  token = randomBytes(25).toString('hex'),
) {
  const signature = createHmac('sha256', key).update(`${timestamp}${token}`).digest('hex')
  return { timestamp: String(timestamp), token, signature }
}

/** An RSA key and a self-signed certificate for `host`, made with openssl, as SNS signs with its own. */
export function selfSignedCertificate(host: string): { key: string; cert: string } {
  const dir = mkdtempSync(join(tmpdir(), 'sns-cert-'))
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '1',
        '-subj',
        `/CN=${host}`,
        '-addext',
        `subjectAltName=DNS:${host}`,
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    )
    return {
      key: readFileSync(join(dir, 'key.pem'), 'utf8'),
      cert: readFileSync(join(dir, 'cert.pem'), 'utf8'),
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** The string SNS signs (SignatureVersion 1, SHA1withRSA): the message's keys in order, each name then value. */
export function signSnsMessage(message: Record<string, string>, privateKey: string): Record<string, string> {
  const keys =
    message.Type === 'Notification'
      ? ['Message', 'MessageId', 'Subject', 'Timestamp', 'TopicArn', 'Type']
      : ['Message', 'MessageId', 'SubscribeURL', 'Timestamp', 'Token', 'TopicArn', 'Type']
  const signed = keys
    .filter((key) => key in message)
    .map((key) => `${key}\n${message[key]}\n`)
    .join('')
  const signer = createSign('RSA-SHA1')
  signer.update(signed)
  return { ...message, SignatureVersion: '1', Signature: signer.sign(privateKey, 'base64') }
}
