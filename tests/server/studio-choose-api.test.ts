import { request as httpRequest } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mailWords } from '../../contract/site-config'
import { stopBackends } from '../../harness/backends'
import { type StudioProcess, startStudioProcess } from '../../harness/studio-process'
import { entryStatus } from '../support/entry-status'
import { type MailTestServer, startMailTestServer } from '../support/mail-test-server'
import { addCohort, COHORT, queuedInvitations } from '../support/studio-cohort'

// Issue 43 in the studio's API: the owner chooses a cohort by status, source and answers, invites
// the rows ticked through the same queue and preview as "Invite the next N", reads one entry as
// `show` tells it, and sees the funnel.

/** The studio's API as its page calls it: its own origin, the token as a Bearer. */
function studioApi(studio: StudioProcess) {
  return (path: string, init: RequestInit & { json?: unknown } = {}) => {
    const { json, ...rest } = init
    return fetch(`${studio.origin}${path}`, {
      ...rest,
      ...(json === undefined ? {} : { method: 'POST', body: JSON.stringify(json) }),
      headers: {
        'Sec-Fetch-Site': 'same-origin',
        Authorization: `Bearer ${studio.token}`,
        ...(json === undefined ? {} : { 'Content-Type': 'application/json' }),
        ...rest.headers,
      },
    })
  }
}

/** A POST on a connection of its own, as a browser sends a body the server refuses unread. */
function postAlone(studio: StudioProcess, path: string, body: string) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const request = httpRequest(
      {
        host: '127.0.0.1',
        port: studio.port,
        path,
        method: 'POST',
        agent: false,
        headers: {
          'Sec-Fetch-Site': 'same-origin',
          Authorization: `Bearer ${studio.token}`,
          'Content-Type': 'application/json',
          'Content-Length': Buffer.byteLength(body),
        },
      },
      (response) => {
        let text = ''
        response.on('data', (chunk) => {
          text += chunk
        })
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text }))
      },
    )
    // The server may answer and close before the whole body is written.
    request.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE' && error.code !== 'ECONNRESET') reject(error)
    })
    request.end(body)
  })
}

const LIST = COHORT
const invitations = queuedInvitations

afterAll(async () => {
  await stopBackends()
})

describe('the studio chooses a cohort', () => {
  let mail: MailTestServer
  let studio: StudioProcess
  let api: ReturnType<typeof studioApi>
  const matching = async (query: string) => {
    const response = await api(`/api/entries?${query}`)
    expect(response.status, query).toBe(200)
    const page = (await response.json()) as { matching: number; entries: { email: string }[] }
    return { matching: page.matching, emails: page.entries.map((entry) => entry.email) }
  }

  beforeAll(async () => {
    mail = await startMailTestServer({ MAIL_PER_MINUTE: '0' })
    await addCohort(mail.server.env, mail.database.db)
    studio = await startStudioProcess(mail.server.env)
    api = studioApi(studio)
  })
  afterAll(async () => {
    await studio?.stop()
    await mail?.close()
  })

  it('filters by status, source and answers as `list` does, newest first, and counts the matches', async () => {
    const role = (value: string) => `answer=${encodeURIComponent(`role=${value}`)}`
    expect(await matching(role('Research'))).toEqual({
      matching: 3,
      emails: ['ed@example.com', 'cy@example.com', 'ada@example.com'],
    })
    expect(await matching(`status=waiting&${role('Research')}`)).toEqual({
      matching: 2,
      emails: ['cy@example.com', 'ada@example.com'],
    })
    expect((await matching(`source=launch-post&${role('Research')}`)).emails).toEqual([
      'ed@example.com',
      'ada@example.com',
    ])
    // A text answer: contained, in any letter case; its % is a character, not a wildcard.
    expect((await matching(`answer=${encodeURIComponent('organisation=acme')}`)).emails).toEqual([
      'cy@example.com',
      'bo@example.com',
    ])
    expect((await matching(`answer=${encodeURIComponent('organisation=%')}`)).emails).toEqual([
      'fay@example.com',
    ])
    // One question or one flag repeated: any of them; different ones: all of them.
    expect((await matching(`${role('Research')}&${role('Engineering')}`)).matching).toBe(4)
    expect((await matching('source=direct&source=launch-post&status=waiting')).matching).toBe(4)
    expect(await matching(`source=mcp&${role('Research')}`)).toEqual({ matching: 0, emails: [] })
  })

  it('refuses a filter it cannot read, in the words of its query', async () => {
    for (const [query, words] of [
      ['status=lost', 'status needs one of unconfirmed, waiting'],
      [`answer=${encodeURIComponent('role=Astronaut')}`, 'answer role needs one of "Research"'],
      [
        `answer=${encodeURIComponent('height=2m')}`,
        'answer needs ID=VALUE with ID one of role, organisation, use_case',
      ],
      ['answer=role', 'answer needs ID=VALUE'],
      [Array.from({ length: 51 }, (_, n) => `source=s${n}`).join('&'), 'at most 50 sources'],
      [`source=${'x'.repeat(101)}`, 'source needs a name of 1 to 100 characters'],
      [`answer=${encodeURIComponent(`use_case=${'x'.repeat(501)}`)}`, 'answer at most 509 characters'],
    ]) {
      const response = await api(`/api/entries?${query}`)
      expect(response.status, query).toBe(400)
      expect(((await response.json()) as { error: string }).error, query).toContain(words)
    }
  })

  it('offers the sources the entries came from, in alphabetical order', async () => {
    const summary = (await (await api('/api/summary?days=all')).json()) as Record<string, unknown>
    expect(summary).toMatchObject({
      total: LIST.length,
      sources: ['direct', 'launch-post'],
      moreSources: false,
    })
  })

  it('tells one entry as `show` does: status, source, answers, history; 404 for none', async () => {
    const response = await api(`/api/entry?email=${encodeURIComponent(' ADA@example.com ')}`)
    expect(response.status).toBe(200)
    const entry = (await response.json()) as { history: { at: string; event: string; detail?: string }[] }
    expect(entry).toMatchObject({
      email: 'ada@example.com',
      status: 'waiting',
      source: 'launch-post',
      answers: { role: 'Research', organisation: 'Example University' },
    })
    expect(entry.history[0]).toEqual({
      at: '2024-11-01T09:00:00.000000Z',
      event: 'signed up',
      detail: 'from launch-post',
    })
    expect((await api('/api/entry?email=nobody%40example.com')).status).toBe(404)
    expect((await api('/api/entry')).status).toBe(400)
    expect((await api(`/api/entry?email=${'a'.repeat(255)}`)).status).toBe(400)
  })

  it('sorts by any column either way, and refuses an order it does not know', async () => {
    const sorted = async (query: string) => (await matching(query)).emails
    // Organisation A to Z: text in byte order of its lower case, those without one last either way.
    expect(await sorted('sort=answer_organisation&order=asc')).toEqual([
      'fay@example.com',
      'cy@example.com',
      'bo@example.com',
      'ada@example.com',
      'di@example.com',
      'ed@example.com',
    ])
    expect(await sorted('sort=answer_organisation&order=desc')).toEqual([
      'ada@example.com',
      'bo@example.com',
      'cy@example.com',
      'fay@example.com',
      'ed@example.com',
      'di@example.com',
    ])
    expect(await sorted('sort=created_at&order=asc')).toEqual(LIST.map(([email]) => email))
    for (const [query, words] of [
      ['sort=password', 'sort needs one of created_at, email'],
      ['sort=email&order=sideways', 'order needs asc or desc'],
      ['sort=email&after=2024-11-01T09:00:00.000000Z_1x', 'cursor'],
    ]) {
      const response = await api(`/api/entries?${query}`)
      expect(response.status, query).toBe(400)
      expect(((await response.json()) as { error: string }).error, query).toContain(words)
    }
  })

  it('tags and untags the rows ticked and writes a note, as the CLI does; offers the tags to filter by', async () => {
    const tagged = await api('/api/tag', {
      json: { emails: ['ada@example.com', 'BO@example.com', 'zz@example.com'], tag: 'Shortlist' },
    })
    expect(await tagged.json()).toEqual({ tag: 'shortlist', changed: 2, unchanged: 0, unknown: 1, full: [] })
    expect(
      await (await api('/api/untag', { json: { emails: ['bo@example.com'], tag: 'shortlist' } })).json(),
    ).toEqual({
      tag: 'shortlist',
      changed: 1,
      unchanged: 0,
      unknown: 0,
      full: [],
    })
    const summary = (await (await api('/api/summary?days=all')).json()) as {
      tags: unknown
      moreTags: boolean
    }
    expect(summary).toMatchObject({ tags: [{ tag: 'shortlist', entries: 1 }], moreTags: false })
    expect((await matching('tag=shortlist')).emails).toEqual(['ada@example.com'])
    expect((await matching('no-tag=shortlist&domain=example.com')).matching).toBe(LIST.length - 1)
    const noted = await api('/api/note', {
      json: { email: 'ada@example.com', note: 'Asked about\r\nthe agents track ' },
    })
    expect(await noted.json()).toEqual({ changed: true, note: 'Asked about\nthe agents track' })
    const entry = (await (await api('/api/entry?email=ada%40example.com')).json()) as Record<string, unknown>
    expect(entry).toMatchObject({ tags: ['shortlist'], note: 'Asked about\nthe agents track' })
    expect(JSON.stringify(entry.history)).toContain('"event":"tagged","detail":"shortlist (studio)"')
    for (const [path, json, status] of [
      ['/api/tag', { emails: ['ada@example.com'], tag: 'short list' }, 400],
      ['/api/tag', { emails: [], tag: 'x' }, 400],
      ['/api/tag', { emails: Array.from({ length: 1001 }, (_, n) => `p${n}@example.com`), tag: 'x' }, 400],
      ['/api/note', { email: 'ada@example.com', note: 'y'.repeat(1001) }, 400],
      ['/api/note', { email: 'nobody@example.com', note: 'x' }, 404],
    ] as const) {
      const response = await api(path, { json })
      expect(response.status, `${path} ${JSON.stringify(json).slice(0, 60)}`).toBe(status)
    }
    const form = await api('/api/tag', {
      method: 'POST',
      body: 'emails=ada@example.com&tag=x',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    })
    expect(form.status).toBe(415)
    expect((await postAlone(studio, '/api/note', 'x'.repeat(400 * 1024))).status).toBe(413)
  })

  it('previews the rows ticked: who will be invited, who is left alone and why; nothing is queued', async () => {
    const response = await api('/api/invite/selected/preview', {
      json: {
        emails: [
          'ed@example.com',
          'cy@example.com',
          'ghost@example.com',
          'ADA@example.com',
          'ada@example.com',
        ],
      },
    })
    expect(response.status).toBe(200)
    expect(await response.json()).toMatchObject({
      requested: 4,
      count: 2,
      recipients: [{ email: 'ada@example.com' }, { email: 'cy@example.com' }],
      refused: [
        {
          email: 'ed@example.com',
          status: 'unsubscribed',
          reason: expect.stringContaining('unsubscribed'),
        },
      ],
      unknown: 1,
      subject: 'Your invitation to the Tessel Labs private beta',
      placeholder: null,
      cannotSend: null,
    })
    expect(await invitations(mail.database.db)).toEqual([])
  })

  it('refuses a selection of none, of more than 1,000, a body that is not JSON or is too large', async () => {
    const tooMany = Array.from({ length: 1001 }, (_, n) => `person.${n}@example.com`)
    for (const [init, status] of [
      [{ json: { emails: [] } }, 400],
      [{ json: { emails: tooMany } }, 400],
      [{ json: { emails: ['ada@example.com', 7] } }, 400],
      [{ json: { emails: ['x'.repeat(255)] } }, 400],
      [{ method: 'POST', body: 'emails=ada@example.com' }, 415],
    ] as const) {
      for (const path of ['/api/invite/selected/preview', '/api/invite/selected']) {
        const response = await api(path, init)
        expect(response.status, `${path} ${JSON.stringify(init).slice(0, 60)}`).toBe(status)
        expect(((await response.json()) as { error: string }).error).toContain('"emails"')
      }
    }
    // Refused from its length, unread: on a socket of its own, which the studio then closes.
    const large = JSON.stringify({ emails: ['ada@example.com'], padding: 'x'.repeat(400 * 1024) })
    for (const path of ['/api/invite/selected/preview', '/api/invite/selected'])
      expect(await postAlone(studio, path, large), path).toMatchObject({
        status: 413,
        body: /at most 300 KiB/,
      })
    expect(await invitations(mail.database.db)).toEqual([])
  })

  it('invites the rows ticked as one batch of the studio’s; the server mails those it invited, only', async () => {
    const response = await api('/api/invite/selected', {
      json: { emails: ['ada@example.com', 'cy@example.com', 'ed@example.com'] },
    })
    expect(response.status).toBe(200)
    expect(await response.json()).toMatchObject({
      queued: 2,
      refused: [{ email: 'ed@example.com', status: 'unsubscribed' }],
      unknown: 0,
      waitsForSender: false,
    })
    // One batch, whichever of the two was queued first (the rows ticked have no order of their own).
    const queued = await invitations(mail.database.db)
    expect(queued.sort((a, b) => a.email.localeCompare(b.email))).toEqual([
      { email: 'ada@example.com', by: 'studio', chosenBy: '3 selected', size: 2 },
      { email: 'cy@example.com', by: 'studio', chosenBy: '3 selected', size: 2 },
    ])
    const { sink } = mail
    await sink.waitFor(() => sink.received.length >= 2, 'two invitations')
    expect(sink.received.flatMap((message) => message.to).sort()).toEqual([
      'ada@example.com',
      'cy@example.com',
    ])
    expect(await entryStatus(mail.database.db, 'ada@example.com')).toBe('invited')
    expect(await entryStatus(mail.database.db, 'ed@example.com')).toBe('unsubscribed')
    // The entry panel tells it: the invitation, and its message.
    const entry = (await (await api('/api/entry?email=cy%40example.com')).json()) as {
      history: { event: string; kind?: string }[]
    }
    expect(entry.history.map((item) => item.event)).toEqual(expect.arrayContaining(['invited', 'message']))
    expect(entry.history.find((item) => item.event === 'message')?.kind).toBe('invitation')
  })

  it('records "Invite the next N" as a batch of the studio’s too', async () => {
    // The table sorted oldest first: its first row that may be invited (invite-in-order.test.ts has the others).
    const response = await api('/api/invite?sort=created_at&order=asc', { json: { count: 1 } })
    expect(await response.json()).toMatchObject({ queued: 1 })
    expect((await invitations(mail.database.db)).at(-1)).toEqual({
      email: 'bo@example.com',
      by: 'studio',
      chosenBy: 'next 1 --sort created_at',
      size: 1,
    })
  })

  it('shows the funnel as `funnel --json` gives it, by source or by batch', async () => {
    const bySource = (await (await api('/api/funnel?by=source&days=all')).json()) as {
      total: { signups: number; invited: number }
      rows: { source: string | null; signups: number; invited: number }[]
    }
    expect(bySource.total).toMatchObject({ signups: LIST.length, invited: 3 })
    expect(bySource.rows.find((row) => row.source === 'launch-post')).toMatchObject({
      signups: 3,
      invited: 2,
    })
    const byBatch = (await (await api('/api/funnel?by=batch&days=all')).json()) as {
      rows: { batch: { by: string; size: number; chosenBy: string }; invited: number; joined: number }[]
    }
    expect(byBatch.rows).toMatchObject([
      { batch: { by: 'studio', size: 2, chosenBy: '3 selected' }, invited: 2, joined: 0 },
      { batch: { by: 'studio', size: 1, chosenBy: 'next 1 --sort created_at' }, invited: 1, joined: 0 },
    ])
    for (const query of ['by=person', 'days=7', 'by=batch&days=365'])
      expect((await api(`/api/funnel?${query}`)).status, query).toBe(400)
  })

  it('offers at most 50 sources, in alphabetical order, and says more exist', async () => {
    // Sources are signups' names (a utm_source, a referring site): anyone can make more of them.
    await mail.database.db.query(
      `insert into public.waitlist (email, source)
       select 'many.' || n || '@example.com', 'site-' || lpad(n::text, 2, '0') || '.example' from generate_series(1, 60) n`,
    )
    const summary = (await (await api('/api/summary?days=all')).json()) as {
      sources: string[]
      moreSources: boolean
    }
    expect(summary.moreSources).toBe(true)
    expect(summary.sources).toHaveLength(50)
    expect(summary.sources.slice(0, 3)).toEqual(['direct', 'launch-post', 'site-01.example'])
    expect(summary.sources.at(-1)).toBe('site-48.example')
  })

  it('"Tag selected" refuses a 51st tag for that entry alone, naming it, and tags the others (issue 61)', async () => {
    for (let n = 1; n <= 50; n++) {
      const given = await api('/api/tag', { json: { emails: ['di@example.com'], tag: `t${n}` } })
      expect(given.status).toBe(200)
    }
    const tagged = await api('/api/tag', {
      json: { emails: ['di@example.com', 'fay@example.com'], tag: 'shortlist-51' },
    })
    expect(tagged.status).toBe(200)
    expect(await tagged.json()).toEqual({
      tag: 'shortlist-51',
      changed: 1,
      unchanged: 0,
      unknown: 0,
      full: ['di@example.com'],
    })
    const tagsOf = async (email: string) =>
      ((await (await api(`/api/entry?email=${encodeURIComponent(email)}`)).json()) as { tags: string[] }).tags
    expect(await tagsOf('fay@example.com')).toEqual(['shortlist-51'])
    expect(await tagsOf('di@example.com')).toHaveLength(50)
    expect(await tagsOf('di@example.com')).not.toContain('shortlist-51')
  })
})

describe('the studio’s "Invite selected" while the beta link is the placeholder', () => {
  it('previews with the note, and queues nothing, in the CLI’s words', async () => {
    const mail = await startMailTestServer({ BETA_URL: '' })
    const studio = await startStudioProcess(mail.server.env)
    try {
      await addCohort(mail.server.env, mail.database.db)
      const api = studioApi(studio)
      const preview = (await (
        await api('/api/invite/selected/preview', { json: { emails: ['ada@example.com'] } })
      ).json()) as { placeholder: string }
      expect(preview.placeholder).toContain(`The beta link ${mailWords.betaUrl} is a placeholder`)
      const queued = await api('/api/invite/selected', { json: { emails: ['ada@example.com'] } })
      expect(queued.status).toBe(409)
      expect(((await queued.json()) as { error: string }).error).toMatch(
        /^Nothing queued: the beta link .* is a placeholder/,
      )
      expect(await invitations(mail.database.db)).toEqual([])
      expect(await entryStatus(mail.database.db, 'ada@example.com')).toBe('waiting')
    } finally {
      await studio.stop()
      await mail.close()
    }
  })
})
