import { Agent, createServer as createHttpsServer, type RequestOptions, type Server } from 'node:https'
import type { AddressInfo } from 'node:net'
import type { Duplex } from 'node:stream'
import { connect } from 'node:tls'
import { type ServerType, serve } from '@hono/node-server'
import { Hono } from 'hono'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Logger } from '../../server/base/log'
import { type OpenedDatabase, openDatabase } from '../../server/db/open-database'
import { createMailEventsApp } from '../../server/http/mail-events-app'
import { loadMailEventProviders } from '../../server/mail/events/event-settings'
import { insertStatus } from '../reliability/support'
import { entryStatus } from '../support/entry-status'
import { type MailTestServer, startMailTestServer } from '../support/mail-test-server'
import { mailedEntry } from '../support/mailed-entry'
import { selfSignedCertificate, signSnsMessage } from '../support/provider-signing'

/**
 * POST /mail-events/ses, the real route over HTTP in this process, so that SNS's certificate can be
 * served from here: an agent sends connections for *.amazonaws.com to a local HTTPS server holding
 * a certificate made in the test, and every other connection goes where it is addressed, as in
 * production. A trap server off amazonaws.com counts every connection it gets: it must get none.
 * The SNS stand-in records every path asked of it, so a test sees what was fetched, and how often.
 * The database is a real server's, which mails the entries through its SMTP server first.
 */
const TOPIC = 'arn:aws:sns:us-east-1:123456789012:ses-events'
const SNS_HOST = 'sns.us-east-1.amazonaws.com'
const CERT_PATH = '/SimpleNotificationService-0123456789abcdef0123456789abcdef.pem'
const CERT_URL = `https://${SNS_HOST}${CERT_PATH}`
// A certificate path the stand-in never serves: it cuts the connection, as a network failure would.
const BROKEN_PATH = '/SimpleNotificationService-ffffffffffffffffffffffffffffffff.pem'
const signing = selfSignedCertificate(SNS_HOST)
const stranger = selfSignedCertificate(SNS_HOST)

let mail: MailTestServer
let opened: OpenedDatabase
let sns: Server
let trap: Server
let trapConnections = 0
let routes: ServerType
let routesUrl: string
const snsRequests: string[] = []
const logged: string[] = []

const listening = (server: Server) =>
  new Promise<number>((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)),
  )

/** Sends *.amazonaws.com to the local SNS stand-in (trusting its certificate); anything else as asked. */
class LocalSnsAgent extends Agent {
  constructor(private readonly snsPort: number) {
    super({ keepAlive: false })
  }
  override createConnection(
    options: RequestOptions,
    callback?: (error: Error | null, stream: Duplex) => void,
  ) {
    if (!options.host?.endsWith('.amazonaws.com')) return super.createConnection(options, callback)
    return connect({ host: '127.0.0.1', port: this.snsPort, servername: options.host, ca: signing.cert })
  }
}

beforeAll(async () => {
  mail = await startMailTestServer({ MAIL_PER_MINUTE: '0' })
  opened = await openDatabase({ dataDir: mail.server.dataDir, purpose: 'test', besideServer: true })
  sns = createHttpsServer({ key: signing.key, cert: signing.cert }, (request, response) => {
    snsRequests.push(request.url ?? '')
    if (request.url === CERT_PATH) response.end(signing.cert)
    else if (request.url === BROKEN_PATH) request.socket.destroy()
    else if (request.url?.startsWith('/?Action=ConfirmSubscription'))
      response.end('<ConfirmSubscriptionResponse/>')
    else response.writeHead(404).end()
  })
  trap = createHttpsServer({ key: stranger.key, cert: stranger.cert }, (_request, response) =>
    response.end(signing.cert),
  )
  trap.on('connection', () => trapConnections++)
  const agent = new LocalSnsAgent(await listening(sns))
  await listening(trap)
  const log: Logger = { info: (line) => logged.push(line), error: (line) => logged.push(line) }
  const providers = await loadMailEventProviders(
    { MAIL_EVENTS_SES_TOPIC_ARN: TOPIC, DATA_DIR: mail.server.dataDir },
    agent,
  )
  const app = new Hono()
  app.route(
    '/mail-events',
    createMailEventsApp({ db: opened.db, log, providers, gate: async (_c, next) => next() }),
  )
  await new Promise<void>((resolve) => {
    routes = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => {
      routesUrl = `http://127.0.0.1:${info.port}`
      resolve()
    })
  })
})

afterAll(async () => {
  await new Promise((resolve) => routes?.close(resolve))
  sns?.close()
  trap?.close()
  await opened?.close()
  await mail?.close()
})

const trapUrl = (path: string) => `https://127.0.0.1:${(trap.address() as AddressInfo).port}${path}`

const statusOf = (email: string) => entryStatus(opened.db, email)

/** POSTs an SNS message to /mail-events/ses as SNS sends it. */
const postSns = (message: Record<string, string>) =>
  fetch(`${routesUrl}/mail-events/ses`, {
    method: 'POST',
    headers: { 'content-type': 'text/plain; charset=UTF-8', 'x-amz-sns-message-type': message.Type ?? '' },
    body: JSON.stringify(message),
  })

let messages = 0
/** An SNS Notification carrying an SES notification, signed with `key` (SNS's own, unless told). */
function notification(
  ses: object,
  options: { key?: string; certUrl?: string; topic?: string; at?: Date | string; type?: string } = {},
) {
  messages++
  return signSnsMessage(
    {
      Type: options.type ?? 'Notification',
      MessageId: `22b80b92-fdea-4c2c-8f9d-bdfb0c7bf3${String(messages).padStart(2, '0')}`,
      TopicArn: options.topic ?? TOPIC,
      Message: JSON.stringify(ses),
      Timestamp: typeof options.at === 'string' ? options.at : (options.at ?? new Date()).toISOString(),
      SigningCertURL: options.certUrl ?? CERT_URL,
      UnsubscribeURL: `https://${SNS_HOST}/?Action=Unsubscribe&SubscriptionArn=${TOPIC}:c9135db0`,
    },
    options.key ?? signing.key,
  )
}

/** SES's documented bounce notification, the recipient ours. */
const sesBounce = (email: string) => ({
  notificationType: 'Bounce',
  bounce: {
    bounceType: 'Permanent',
    reportingMTA: 'dns; email.example.com',
    bouncedRecipients: [
      {
        emailAddress: email,
        status: '5.1.1',
        action: 'failed',
        diagnosticCode: `smtp; 550 5.1.1 <${email}>... User`,
      },
    ],
    bounceSubType: 'General',
    timestamp: '2016-01-27T14:59:38.237Z',
    feedbackId: '00000138111222aa-33322211-cccc-cccc-cccc-ddddaaaa068a-000000',
    remoteMtaIp: '127.0.2.0',
  },
  mail: {
    timestamp: '2016-01-27T14:59:38.237Z',
    source: 'john@example.com',
    sourceArn: 'arn:aws:ses:us-east-1:888888888888:identity/example.com',
    sendingAccountId: '123456789012',
    messageId: '00000138111222aa-33322211-cccc-cccc-cccc-ddddaaaa0680-000000',
    destination: [email],
    headersTruncated: false,
    commonHeaders: {
      from: ['John Doe <john@example.com>'],
      to: [email],
      messageId: 'custom-message-ID',
      subject: 'Hello',
    },
  },
})

describe('SES through SNS', () => {
  it('confirms a subscription for an accepted topic, on its amazonaws.com SubscribeURL', async () => {
    const subscribe = `https://${SNS_HOST}/?Action=ConfirmSubscription&TopicArn=${TOPIC}&Token=2336412f37fb687f5d51e6e2425c464de`
    const confirmation = (topic: string) =>
      signSnsMessage(
        {
          Type: 'SubscriptionConfirmation',
          MessageId: '165545c9-2a5c-472c-8df2-7ff2be2b3b1b',
          Token: '2336412f37fb687f5d51e6e2425c464de',
          TopicArn: topic,
          Message: `You have chosen to subscribe to the topic ${topic}.`,
          SubscribeURL: subscribe,
          Timestamp: new Date().toISOString(),
          SigningCertURL: CERT_URL,
        },
        signing.key,
      )
    expect((await postSns(confirmation('arn:aws:sns:us-east-1:123456789012:someone-else'))).status).toBe(403)
    expect(snsRequests).toEqual([])
    expect((await postSns(confirmation(TOPIC))).status).toBe(200)
    expect(snsRequests).toEqual([CERT_PATH, subscribe.slice(`https://${SNS_HOST}`.length)])
  })

  it('a bounce and a complaint apply; the certificate is fetched once', async () => {
    const bounced = 'ann.ses@example.com'
    const complained = 'ben.ses@example.com'
    await mailedEntry(mail, bounced)
    await mailedEntry(mail, complained)
    expect((await postSns(notification(sesBounce(bounced)))).status).toBe(200)
    expect(await statusOf(bounced)).toBe('bounced')
    const complaint = {
      notificationType: 'Complaint',
      complaint: {
        userAgent: 'AnyCompany Feedback Loop (V0.01)',
        complainedRecipients: [{ emailAddress: complained }],
        complaintFeedbackType: 'abuse',
        arrivalDate: '2016-01-27T14:59:38.237Z',
        timestamp: '2016-01-27T14:59:38.237Z',
        feedbackId: '000001378603177f-18c07c78-fa81-4a58-9dd1-fedc3cb8f49a-000000',
      },
      mail: sesBounce(complained).mail,
    }
    expect((await postSns(notification(complaint))).status).toBe(200)
    expect(await statusOf(complained)).toBe('complained')
    expect(snsRequests.filter((path) => path === CERT_PATH)).toHaveLength(1)
    expect(logged.join('\n')).not.toContain('.ses@example.com')
  })

  it('a forged, stale or foreign-topic notification changes nothing', async () => {
    const email = 'cal.ses@example.com'
    await mailedEntry(mail, email)
    expect((await postSns(notification(sesBounce(email), { key: stranger.key }))).status).toBe(401)
    const stale = new Date(Date.now() - 6 * 60_000)
    expect((await postSns(notification(sesBounce(email), { at: stale }))).status).toBe(401)
    expect((await postSns(notification(sesBounce(email), { topic: `${TOPIC}-other` }))).status).toBe(403)
    expect(await statusOf(email)).toBe('invited')
  })

  it('takes only SNS’s own time format, signed or not: another spelling of now is refused', async () => {
    const email = 'cy.ses@example.com'
    await mailedEntry(mail, email)
    const spellings = [
      new Date().toUTCString(),
      new Date().toISOString().replace('Z', '+00:00'),
      `${Date.now()}`,
    ]
    for (const at of spellings) {
      const answer = await postSns(notification(sesBounce(email), { at }))
      expect(answer.status, at).toBe(401)
      expect((await answer.json()).hint).toBe(
        'the SNS timestamp is not a time such as 2026-12-01T10:00:00.000Z',
      )
    }
    expect(await statusOf(email)).toBe('invited')
  })

  it('never fetches a SigningCertURL or SubscribeURL off sns.<region>.amazonaws.com', async () => {
    const email = 'dot.ses@example.com'
    expect(await insertStatus(mail.server, email)).toBe(201)
    const offAmazon = [
      trapUrl(CERT_PATH),
      `https://${SNS_HOST}.evil.example${CERT_PATH}`,
      `http://${SNS_HOST}${CERT_PATH}`,
    ]
    for (const certUrl of offAmazon)
      expect((await postSns(notification(sesBounce(email), { certUrl }))).status).toBe(400)
    const subscription = signSnsMessage(
      {
        Type: 'SubscriptionConfirmation',
        MessageId: '165545c9-2a5c-472c-8df2-7ff2be2b3b1c',
        Token: 'abc',
        TopicArn: TOPIC,
        Message: 'You have chosen to subscribe.',
        SubscribeURL: trapUrl('/?Action=ConfirmSubscription'),
        Timestamp: new Date().toISOString(),
        SigningCertURL: CERT_URL,
      },
      signing.key,
    )
    expect((await postSns(subscription)).status).toBe(400)
    expect(trapConnections).toBe(0)
    expect(await statusOf(email)).toBe('waiting')
  })

  it('checks the type, topic, signature version, certificate URL and time before fetching anything', async () => {
    const email = 'eve.ses@example.com'
    await mailedEntry(mail, email)
    let file = 0
    // A well-shaped certificate URL never asked for before, so any fetch of it would show.
    const unseen = (host = SNS_HOST) =>
      `https://${host}/SimpleNotificationService-${String(++file).padStart(32, 'a')}.pem`
    const cases: [Record<string, string>, number][] = [
      [notification(sesBounce(email), { certUrl: unseen(), type: 'Bogus' }), 400],
      [notification(sesBounce(email), { certUrl: unseen(), topic: `${TOPIC}-other` }), 403],
      [{ ...notification(sesBounce(email), { certUrl: unseen() }), SignatureVersion: '3' }, 400],
      // Another region than the topic's: SNS signs a topic's messages in its own region.
      [notification(sesBounce(email), { certUrl: unseen('sns.eu-west-1.amazonaws.com') }), 400],
      [notification(sesBounce(email), { certUrl: unseen(), at: new Date(Date.now() - 6 * 60_000) }), 401],
    ]
    const asked = snsRequests.length
    for (const [message, status] of cases) expect((await postSns(message)).status).toBe(status)
    expect(snsRequests.slice(asked)).toEqual([])
    expect(await statusOf(email)).toBe('invited')
  })

  it('a certificate that cannot be fetched is asked for once, not again for every message, and SNS is told to retry', async () => {
    const email = 'fay.ses@example.com'
    await mailedEntry(mail, email)
    const certUrl = `https://${SNS_HOST}${BROKEN_PATH}`
    const statuses = await Promise.all(
      Array.from({ length: 3 }, () =>
        postSns(notification(sesBounce(email), { certUrl })).then((r) => r.status),
      ),
    )
    for (let i = 0; i < 3; i++)
      statuses.push((await postSns(notification(sesBounce(email), { certUrl }))).status)
    expect(statuses).toEqual([503, 503, 503, 503, 503, 503])
    expect(snsRequests.filter((path) => path === BROKEN_PATH)).toHaveLength(1)
    expect(await statusOf(email)).toBe('invited')
  })
})
