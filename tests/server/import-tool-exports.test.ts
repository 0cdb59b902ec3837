import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestServer, type TestServer } from '../../harness/test-server'
import { cliOf } from '../../harness/waitlist-cli'
import { parseCsv } from '../../owner/cli/csv-reader'
import { runningClusterUrl } from '../../server/db/embedded/embedded-cluster'

/**
 * Issue 64: the exports labs hold import as exported. Each file below is written as its tool writes
 * it (its headers, its quoting, its dates, its line ends); each imports with no editing, and a
 * `--column` only for a column named by a form's question. Every row keeps its sign-up time, name,
 * organisation and tags; the columns no field takes are the entry's details.
 */
let server: TestServer
let scratch: string

beforeAll(async () => {
  server = await startTestServer()
  scratch = await mkdtemp(join(tmpdir(), 'import-tool-exports-'))
})

afterAll(async () => {
  await server?.cleanup()
  await rm(scratch, { recursive: true, force: true })
})

const cli = cliOf(() => server)

async function file(name: string, text: string): Promise<string> {
  const path = join(scratch, name)
  await writeFile(path, text)
  return path
}

const crlf = (lines: readonly string[]) => `${lines.join('\r\n')}\r\n`
const lf = (lines: readonly string[]) => `${lines.join('\n')}\n`

/** The exported entries of one domain, each as the columns asked for. */
async function exported(domain: string, ...columns: string[]): Promise<Record<string, string>[]> {
  const out = await cli('export', '--domain', domain)
  expect(out.code).toBe(0)
  const [header = [], ...rows] = parseCsv(out.stdout)
  return rows.map((row) =>
    Object.fromEntries(columns.map((column) => [column, row[header.indexOf(column)] ?? '(none)'])),
  )
}

const PERSON = ['email', 'name', 'created_at', 'answer_organisation', 'tags', 'status']

async function details(email: string): Promise<Record<string, string>> {
  const shown = await cli('show', email, '--json')
  return JSON.parse(shown.stdout).details
}

describe('the exports labs hold import as exported', () => {
  it('Google Forms: US timestamps, "Email Address", a name asked as a question', async () => {
    const path = await file(
      'google-forms.csv',
      crlf([
        '"Timestamp","Email Address","Your name","Company","How did you hear about us?"',
        '"10/14/2024 17:45:51","ada@forms.example","Ada Lovelace","Analytical Engines","Newsletter"',
        '"10/15/2024 9:03:12","grace@forms.example","Grace Hopper","Navy","A friend"',
      ]),
    )
    const imported = await cli('import', path, '--column', 'How did you hear about us?=source')
    expect(imported).toMatchObject({ code: 0, stderr: '' })
    expect(await exported('forms.example', ...PERSON, 'source')).toEqual([
      {
        email: 'ada@forms.example',
        name: 'Ada Lovelace',
        created_at: '2024-10-14T17:45:51.000000Z',
        answer_organisation: 'Analytical Engines',
        tags: '',
        status: 'waiting',
        source: expect.stringMatching(/^newsletter$/i),
      },
      {
        email: 'grace@forms.example',
        name: 'Grace Hopper',
        created_at: '2024-10-15T09:03:12.000000Z',
        answer_organisation: 'Navy',
        tags: '',
        status: 'waiting',
        source: expect.stringMatching(/^a friend$/i),
      },
    ])
  })

  it('Typeform: questions as headers, "Submit Date (UTC)", its tags; its ids left out', async () => {
    const path = await file(
      'typeform.csv',
      lf([
        "#,What's your name?,What's your email address?,Which company do you work for?,Tags,Start Date (UTC),Submit Date (UTC),Network ID",
        'r1a2b3c4d5,Alan Turing,alan@typeform.example,Bletchley Park,early,2024-03-05 14:20:01,2024-03-05 14:22:10,5f2e1c9a0b',
        'x9y8z7w6v5,Joan Clarke,joan@typeform.example,Hut 8,"early conference",2024-03-06 08:00:00,2024-03-06 08:01:30,7c1d2e3f4a',
      ]),
    )
    const imported = await cli('import', path, '--column', 'Which company do you work for?=organisation')
    expect(imported).toMatchObject({ code: 0, stderr: '' })
    expect(await exported('typeform.example', ...PERSON)).toEqual([
      {
        email: 'alan@typeform.example',
        name: 'Alan Turing',
        created_at: '2024-03-05T14:22:10.000000Z',
        answer_organisation: 'Bletchley Park',
        tags: 'early',
        status: 'waiting',
      },
      {
        email: 'joan@typeform.example',
        name: 'Joan Clarke',
        created_at: '2024-03-06T08:01:30.000000Z',
        answer_organisation: 'Hut 8',
        tags: 'conference early',
        status: 'waiting',
      },
    ])
    expect(await details('alan@typeform.example')).toEqual({})
  })

  it('Tally: "Submitted at", a first and a last name', async () => {
    const path = await file(
      'tally.csv',
      lf([
        'Submission ID,Respondent ID,Submitted at,First name,Last name,Email,Company,Anything else?',
        'mRx0aB,3xKd9L,2024-03-05 14:22:10,Barbara,Liskov,barbara@tally.example,CLU Labs,Keen on the beta',
      ]),
    )
    expect(await cli('import', path)).toMatchObject({ code: 0, stderr: '' })
    expect(await exported('tally.example', ...PERSON)).toEqual([
      {
        email: 'barbara@tally.example',
        name: 'Barbara Liskov',
        created_at: '2024-03-05T14:22:10.000000Z',
        answer_organisation: 'CLU Labs',
        tags: '',
        status: 'waiting',
      },
    ])
    expect(await details('barbara@tally.example')).toEqual({ 'Anything else?': 'Keen on the beta' })
  })

  const CHIMP_START =
    'Email Address,First Name,Last Name,Company,MEMBER_RATING,OPTIN_TIME,OPTIN_IP,CONFIRM_TIME,CONFIRM_IP,LATITUDE,LONGITUDE,GMTOFF,DSTOFF,TIMEZONE,CC,REGION'

  it('Mailchimp: its subscribed, unsubscribed and cleaned exports, tags as it quotes them, its bookkeeping left out', async () => {
    const subscribed = await file(
      'subscribed_members_export_1a2b3c.csv',
      crlf([
        `${CHIMP_START},LAST_CHANGED,LEID,EUID,NOTES,TAGS`,
        'edsger@chimp.example,Edsger,Dijkstra,THE,2,"2024-03-05 14:22:10",,"2024-03-05 14:25:00",203.0.113.7,52.37,4.89,1,2,Europe/Amsterdam,NL,NH,"2024-03-06 10:00:00",123456789,a1b2c3d4e5,"met at the meetup","""early"",""conference"""',
      ]),
    )
    const unsubscribed = await file(
      'unsubscribed_members_export_1a2b3c.csv',
      crlf([
        `${CHIMP_START},UNSUB_TIME,UNSUB_CAMPAIGN_TITLE,UNSUB_CAMPAIGN_ID,LEID,EUID,UNSUB_REASON,UNSUB_REASON_OTHER,NOTES,TAGS`,
        'tony@chimp.example,Tony,Hoare,Elliott,2,"2024-03-01 09:00:00",,,,,,,,,,,"2024-04-02 11:30:00","April news",abc123,223456789,b1b2c3d4e5,"No longer interested",,,',
      ]),
    )
    const cleaned = await file(
      'cleaned_members_export_1a2b3c.csv',
      crlf([
        `${CHIMP_START},CLEAN_TIME,CLEAN_CAMPAIGN_TITLE,CLEAN_CAMPAIGN_ID,LEID,EUID,NOTES,TAGS`,
        'niklaus@chimp.example,Niklaus,Wirth,ETH,1,"2024-02-01 08:00:00",,,,,,,,,,,"2024-04-03 07:00:00","April news",abc123,323456789,c1b2c3d4e5,,"""early"""',
      ]),
    )
    for (const path of [subscribed, unsubscribed, cleaned])
      expect(await cli('import', path)).toMatchObject({ code: 0, stderr: '' })
    expect(await exported('chimp.example', ...PERSON, 'unsubscribed_at', 'bounced_at', 'note')).toEqual([
      {
        email: 'niklaus@chimp.example',
        name: 'Niklaus Wirth',
        created_at: '2024-02-01T08:00:00.000000Z',
        answer_organisation: 'ETH',
        tags: 'early',
        status: 'bounced',
        unsubscribed_at: '',
        bounced_at: '2024-04-03T07:00:00.000000Z',
        note: '',
      },
      {
        email: 'tony@chimp.example',
        name: 'Tony Hoare',
        created_at: '2024-03-01T09:00:00.000000Z',
        answer_organisation: 'Elliott',
        tags: '',
        status: 'unsubscribed',
        unsubscribed_at: '2024-04-02T11:30:00.000000Z',
        bounced_at: '',
        note: '',
      },
      {
        email: 'edsger@chimp.example',
        name: 'Edsger Dijkstra',
        created_at: '2024-03-05T14:22:10.000000Z',
        answer_organisation: 'THE',
        tags: 'conference early',
        status: 'waiting',
        unsubscribed_at: '',
        bounced_at: '',
        note: 'met at the meetup',
      },
    ])
    // Its ids, rating, network and location guesses are not the person's words: not kept.
    expect(await details('edsger@chimp.example')).toEqual({})
    expect(await details('tony@chimp.example')).toEqual({ UNSUB_REASON: 'No longer interested' })
    // Nobody who left is invited again.
    expect((await cli('count', '--domain', 'chimp.example', '--status', 'waiting')).stdout).toBe('1\n')
  })

  it('Luma: name and first name, created_at, custom_source; declined is unsubscribed', async () => {
    const path = await file(
      'luma-guests.csv',
      lf([
        "api_id,name,first_name,last_name,email,phone_number,created_at,approval_status,checked_in_at,custom_source,qr_code_url,amount,currency,ticket_type_id,ticket_name,What's your company?",
        'gst-abc123,Katherine Johnson,Katherine,Johnson,katherine@luma.example,,2024-03-05T14:22:10.123Z,approved,,twitter,https://lu.ma/check-in/evt-1?pk=g-1,0,,evtticktyp-1,Standard,NASA',
        'gst-def456,Dorothy Vaughan,Dorothy,Vaughan,dorothy@luma.example,,2024-03-06T09:00:00.000Z,declined,,,https://lu.ma/check-in/evt-1?pk=g-2,0,,evtticktyp-1,Standard,',
      ]),
    )
    const imported = await cli('import', path, '--column', "What's your company?=organisation")
    expect(imported).toMatchObject({ code: 0, stderr: '' })
    expect(await exported('luma.example', ...PERSON, 'source')).toEqual([
      {
        email: 'katherine@luma.example',
        name: 'Katherine Johnson',
        created_at: '2024-03-05T14:22:10.123000Z',
        answer_organisation: 'NASA',
        tags: '',
        status: 'waiting',
        source: 'twitter',
      },
      {
        email: 'dorothy@luma.example',
        name: 'Dorothy Vaughan',
        created_at: '2024-03-06T09:00:00.000000Z',
        answer_organisation: '',
        tags: '',
        status: 'unsubscribed',
        source: '',
      },
    ])
    expect(await details('katherine@luma.example')).toEqual({
      amount: '0',
      ticket_name: 'Standard',
    })
  })

  it("Airtable: Name, Email, a multiple select's tags, Created with am/pm", async () => {
    const path = await file(
      'Grid view.csv',
      crlf([
        '\ufeffName,Email,Company,Tags,Created',
        'Ada Yonath,yonath@airtable.example,Weizmann,"early,conference",3/5/2024 2:22pm',
        'Chien-Shiung Wu,wu@airtable.example,Columbia,,3/14/2024 9:05am',
      ]),
    )
    expect(await cli('import', path)).toMatchObject({ code: 0, stderr: '' })
    expect(await exported('airtable.example', ...PERSON)).toEqual([
      {
        email: 'yonath@airtable.example',
        name: 'Ada Yonath',
        created_at: '2024-03-05T14:22:00.000000Z',
        answer_organisation: 'Weizmann',
        tags: 'conference early',
        status: 'waiting',
      },
      {
        email: 'wu@airtable.example',
        name: 'Chien-Shiung Wu',
        created_at: '2024-03-14T09:05:00.000000Z',
        answer_organisation: 'Columbia',
        tags: '',
        status: 'waiting',
      },
    ])
  })

  it("a plain spreadsheet: US dates, a stray space, a trailing blank row, a lab's own column", async () => {
    const path = await file(
      'lab-list.csv',
      lf([
        'Name,Email,Company,Signed up on,How did you hear',
        'Jonah Okafor,jonah@sheet.example ,Okafor Labs,09/14/2024,Newsletter',
        'Mei Chen, mei@sheet.example,Chen & Co,09/02/2024,',
        ',,,,',
      ]),
    )
    expect(await cli('import', path)).toMatchObject({ code: 0, stderr: '' })
    expect(await exported('sheet.example', ...PERSON)).toEqual([
      {
        email: 'mei@sheet.example',
        name: 'Mei Chen',
        created_at: '2024-09-02T00:00:00.000000Z',
        answer_organisation: 'Chen & Co',
        tags: '',
        status: 'waiting',
      },
      {
        email: 'jonah@sheet.example',
        name: 'Jonah Okafor',
        created_at: '2024-09-14T00:00:00.000000Z',
        answer_organisation: 'Okafor Labs',
        tags: '',
        status: 'waiting',
      },
    ])
    expect(await details('jonah@sheet.example')).toEqual({ 'How did you hear': 'Newsletter' })
    const shown = await cli('show', 'jonah@sheet.example')
    expect(shown.stdout).toContain('  details  How did you hear: Newsletter\n')
  })

  it('a spreadsheet saved in a European locale: BOM, semicolons, day-first dates, blank rows, a row without an address named', async () => {
    const path = await file(
      'liste.csv',
      crlf([
        '\ufeffName;E-Mail;Organisation;Signed up',
        'Jonas Müller;jonas@eu.example;Müller GmbH;14.10.2024',
        ';;;',
        '',
        'Lena Schmidt; lena@eu.example ;"Schmidt; Partner";02.10.2024 09:30',
        'Ohne Adresse;;Nobody;03.10.2024',
      ]),
    )
    const imported = await cli('import', path, '--timezone', 'Europe/Vienna')
    expect(imported.code).toBe(0)
    expect(imported.stderr).toBe(
      `${path}: 1 row without a usable address was skipped:\n  line 6: no address; skipped\n`,
    )
    expect(imported.stdout).toContain('2 added;')
    expect(await exported('eu.example', ...PERSON)).toEqual([
      {
        email: 'lena@eu.example',
        name: 'Lena Schmidt',
        created_at: '2024-10-02T07:30:00.000000Z',
        answer_organisation: 'Schmidt; Partner',
        tags: '',
        status: 'waiting',
      },
      {
        email: 'jonas@eu.example',
        name: 'Jonas Müller',
        created_at: '2024-10-13T22:00:00.000000Z',
        answer_organisation: 'Müller GmbH',
        tags: '',
        status: 'waiting',
      },
    ])
  })

  it('keeps the first name for the greeting where the file split the name, and none where it did not', async () => {
    const client = new pg.Client({ connectionString: await runningClusterUrl(server.dataDir) })
    await client.connect()
    try {
      const { rows } = await client.query(
        `select w.email::text as email, n.name, n.given_name from private.entry_names n
           join public.waitlist w on w.id = n.waitlist_id
          where w.email::text in ('barbara@tally.example', 'katherine@luma.example', 'ada@forms.example')
          order by 1`,
      )
      expect(rows).toEqual([
        { email: 'ada@forms.example', name: 'Ada Lovelace', given_name: null },
        { email: 'barbara@tally.example', name: 'Barbara Liskov', given_name: 'Barbara' },
        { email: 'katherine@luma.example', name: 'Katherine Johnson', given_name: 'Katherine' },
      ])
    } finally {
      await client.end()
    }
  })

  it('an entry listed before takes the name and details it lacks; its own are kept', async () => {
    expect(await cli('import', await file('bare.csv', lf(['email', 'ida@fill.example'])))).toMatchObject({
      code: 0,
    })
    const later = await file('later.csv', lf(['Name,Email,Badge', 'Ida Rhodes,ida@fill.example,B-7']))
    const filled = await cli('import', later)
    expect(filled.stdout).toContain('1 listed entry took the file')
    const again = await file('again.csv', lf(['Name,Email,Badge', 'Someone Else,ida@fill.example,B-8']))
    expect((await cli('import', again)).code).toBe(1)
    expect(await exported('fill.example', 'email', 'name')).toEqual([
      { email: 'ida@fill.example', name: 'Ida Rhodes' },
    ])
    expect(await details('ida@fill.example')).toEqual({ Badge: 'B-7' })
  })
})
