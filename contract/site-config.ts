/**
 * Everything the page says about the lab, in one place.
 *
 * CHANGE ME: these are placeholder defaults. The specification leaves the lab's name, hiring
 * address ({email}) and job board open; replace them with the lab's own before launch.
 */
import type { SignupQuestion } from './signup-questions.ts'

export interface SiteConfig {
  /** The lab's legal or public name, used in titles and structured data. */
  labName: string
  /** The product wordmark shown in the header, linking to '/'. */
  wordmark: string
  logo: { src: string; width: number; height: number; alt: string }
  tagline: string
  /** One paragraph: what the first product does. */
  pitch: string
  /** The hiring contact, shown as a mailto: link. CHANGE ME. */
  hiringEmail: string
  /** A hosted job board; opens in a new tab. CHANGE ME. */
  careersUrl: string
  /** The 'Join us' section's account of the team and its backing. CHANGE ME. */
  team: string
  backing: string
  hiringAreas: readonly string[]
  city: string
  /** The footer's status line beside its green dot, the specification's words; static by design. */
  statusLine: string
  /** Search result and link preview text (about 150 characters). */
  description: string
  /** Browser UI colour (web manifest, theme-color), the logo's background. */
  themeColor: string
  /** The page's background in each colour scheme (src/styles.css --color-page), for theme-color. */
  pageColors: { light: string; dark: string }
  /** The 1200×630 link preview, made by scripts/make-images.ts. */
  ogImage: { src: `/${string}`; width: number; height: number; alt: string }
  /**
   * Publisher part of the URNs in /.well-known/ai-catalog.json (urn:air:<publisher>:…): the lab's
   * domain, letters, digits, dots and hyphens only. CHANGE ME with the domain.
   */
  publisherId: string
  /**
   * The lab's AI-use policy, stated in robots.txt as a `Content-Signal` line (contentsignals.org):
   * may the pages be used for a search index, as input to an AI answer (grounding, retrieval), and
   * to train or fine-tune AI models. CHANGE ME: the lab's own choice; the defaults allow search and
   * AI answers and refuse training.
   */
  contentSignals: { search: boolean; aiInput: boolean; aiTrain: boolean }
}

export const siteConfig: SiteConfig = {
  labName: 'Tessel Labs',
  wordmark: 'Tessel',
  logo: { src: '/logo.svg', width: 32, height: 32, alt: 'Tessel Labs logo' },
  tagline: 'Infrastructure for agent-centric computing',
  pitch:
    'Our first product teaches AI agents to invoke the right tool, keep context and finish long multi-turn ' +
    "tasks with higher accuracy and throughput, using your organisation's first-party data.",
  hiringEmail: 'careers@tessel-labs.example',
  careersUrl: 'https://jobs.ashbyhq.com/tessel-labs',
  team:
    'We are researchers and engineers from well-known technology companies and trading firms, ' +
    'who have shipped search, ads, payments and trading systems at scale.',
  backing: 'We are backed by a leading startup accelerator and have raised a seed round.',
  hiringAreas: ['research', 'engineering', 'operations', 'product'],
  city: 'San Francisco',
  statusLine: 'All Systems Operational',
  description:
    'Tessel Labs builds infrastructure for agent-centric computing: AI agents that pick the right tool, ' +
    'keep context and finish long tasks. Request access to the private beta.',
  themeColor: '#0f172a',
  pageColors: { light: '#ffffff', dark: '#090d13' },
  ogImage: {
    src: '/og-image.png',
    width: 1200,
    height: 630,
    alt: 'Tessel Labs: Infrastructure for agent-centric computing',
  },
  publisherId: 'tessel-labs.example',
  contentSignals: { search: true, aiInput: true, aiTrain: false },
}

/**
 * The lab's optional questions, asked once an address is confirmed (the confirmation page), taken
 * by the agents' tools as optional arguments, exported as `answer_<id>` columns, and filtered on by
 * the owner (`--answer ID=VALUE`). Each `id` is a name for a form field and a CLI flag: lower case,
 * digits and `_`. A separate export, which the page's first paint never needs. CHANGE ME.
 */
export const signupQuestions: readonly SignupQuestion[] = [
  {
    id: 'role',
    label: 'Your role',
    kind: 'choice',
    choices: ['Research', 'Engineering', 'Product', 'Founder or executive', 'Other'],
  },
  { id: 'organisation', label: 'Organisation', kind: 'text', maxLength: 100 },
  { id: 'use_case', label: 'What would you use it for?', kind: 'text', maxLength: 500 },
]

/**
 * The person's name (optional), asked first on the confirmation page and taken by the agents'
 * tools as their `name` argument: stored beside the entry (private.entry_names), not as an answer,
 * and greeted by in the mails (mailWords.greetingNamed). Its id is the form field's and the
 * argument's name. CHANGE ME: the label is the lab's to word.
 */
export const nameQuestion = {
  id: 'name',
  label: 'Your name',
  kind: 'text',
  maxLength: 200,
} as const satisfies SignupQuestion

/**
 * The words of the mail the server sends (server/mail/) and of the pages its links
 * open (server/http/mail-links/). A separate export, which the page never imports, so it adds no byte
 * to it. CHANGE ME with the lab's own words; `{lab}` is replaced by siteConfig.labName.
 */
export const mailWords = {
  /** Where the invitation's button leads; BETA_URL overrides it. The invite code is added as ?invite=…. CHANGE ME. */
  betaUrl: 'https://beta.tessel-labs.example/',
  invitation: {
    subject: 'Your invitation to the {lab} private beta',
    greeting: 'Hello,',
    paragraphs: [
      'Thank you for waiting. Your place in the {lab} private beta is ready.',
      'The link below opens the beta with your personal invite code. It is made for you alone, so please keep it to yourself.',
    ],
    button: 'Open the beta',
    codeLabel: 'Your invite code',
  },
  confirmation: {
    subject: 'Confirm your address for the {lab} beta waitlist',
    greeting: 'Hello,',
    paragraphs: [
      'Someone, we hope you, asked for beta access to {lab} with this address.',
      'Confirm it and we will keep your place; without a confirmation we will not write again.',
    ],
    button: 'Confirm my address',
  },
  /**
   * The greeting where the person's first name is known (the imported first name, else the first
   * word of their name); `greeting` above where it is not. `{name}` is the first name.
   */
  greetingNamed: 'Hello {name},',
  signOff: 'The {lab} team',
  /** Under every message, beside the unsubscribe link. */
  footer: 'You are receiving this because this address asked for beta access at {site}.',
  unsubscribe: 'Unsubscribe',
  /** Beside the unsubscribe link: the person's own page (what the lab holds, a copy, erasure). */
  yourData: 'Your data',
  pages: {
    unsubscribe: {
      title: 'Unsubscribe',
      line: 'Stop every message from {lab} to the address this link was sent to?',
      button: 'Unsubscribe',
      done: 'You are unsubscribed',
      doneLine: 'No more mail from {lab} will be sent to this address.',
    },
    confirm: {
      title: 'Confirm your address',
      line: 'Confirm this address for the {lab} beta waitlist.',
      button: 'Confirm',
      done: 'Address confirmed',
      doneLine: "Thank you. We'll be in touch soon about beta access.",
      unsubscribed: 'This address unsubscribed, so it gets no mail from {lab}.',
    },
    /** The questions the confirmation page asks once the address is confirmed (signupQuestions), all optional. */
    answers: {
      intro: 'A few optional questions help us choose who joins the beta first.',
      /** A choice's first option: the question left unanswered. */
      noAnswer: 'No answer',
      button: 'Send answers',
      skip: 'Skip',
      done: 'Thank you for your answers',
      doneLine:
        'They help us choose who joins the beta first. Sending them again from your link replaces them.',
      /** A wrong answer: the form again, with the reason after this. */
      problem: 'Check your answers',
      problemLine: 'Nothing was stored:',
      unchanged: 'Nothing was changed',
      unsubscribed: 'This address unsubscribed, so nothing was changed.',
      /** Answers sent before the address was confirmed on the page the link opens. */
      unconfirmed:
        'Confirm this address first: open the link in the message and press Confirm. Then send your answers.',
      /** Answers sent once the address was invited: they went to the lab with it. */
      fixed: 'Your answers were sent to the lab when you were invited, so they can no longer be changed.',
    },
    /** The person's own page (/your-data), which every message, and the unsubscribe page's answer to its button, link to. */
    yourData: {
      title: 'Your data',
      line: 'What {lab} holds about the address this link was sent to. You can download all of it, or erase it.',
      /** The link to this page from the unsubscribe page, once its button is pressed. */
      link: 'See, download or erase your data',
      entry: 'Your entry',
      address: 'Address',
      status: 'Status',
      signedUp: 'Signed up',
      source: 'Came from',
      /** The counters' own names for a signup that came with no visit to the page: what they mean. */
      sources: {
        '(api)': "a program, not the site's page",
        '(other)': 'another site',
        mcp: 'an agent',
        direct: 'the site itself, with no link from elsewhere',
      },
      answers: 'Your answers',
      noAnswers: 'None given.',
      proposed: 'Proposed by an agent, not kept unless you keep them',
      consent: 'Your consent',
      noConsent: 'No consent record: the address joined before {lab} kept one.',
      consentAt: 'Given',
      door: 'Way in',
      doors: {
        page: 'the form on the site',
        form: 'the form on the site, without JavaScript',
        api: "the site's API (a program)",
        mcp: 'an agent, through the MCP server',
        webmcp: 'an agent in your browser (WebMCP)',
        import: 'an import by the lab',
      },
      words: 'Words shown',
      noWords: 'None: a program signed up, not a page.',
      unknownWords: 'Version {version}: its text is not held here.',
      network: 'Network',
      agent: 'Agent',
      /** Then agentPhrase (contract/agent-words.ts): "ChatGPT agent (verified)". */
      madeThrough: 'made through',
      confirmed: 'Confirmed',
      notConfirmed: 'Not confirmed',
      name: 'Name',
      noName: 'None given.',
      details: "From the lab's earlier list",
      /** The team's tags and note: the person's to read too (GDPR Art. 15; ADR 117). */
      marks: "The team's notes about you",
      marksLine: 'What the {lab} team noted about you is yours to read too.',
      tags: 'Tags',
      note: 'Note',
      noMarks: 'None.',
      /** The consent an import records, in place of its words: the lab's file is the lab's own. */
      importWords: '{lab} added you from its earlier list; the words you were shown there are not held here.',
      history: 'History',
      /** The history's lines, in the person's words: no file, no marker, no team member. */
      events: {
        'signed up': 'Signed up',
        added: "Added from the lab's earlier list",
        confirmed: 'Confirmed your address',
        invited: 'Invited',
        joined: 'Joined the beta',
        unsubscribed: 'Unsubscribed',
        bounced: 'Mail to your address bounced',
        complained: 'Marked a message as spam',
        'soft bounce': 'A message could not be delivered this time',
        delivered: 'A message was delivered',
        imported: "Status taken from the lab's earlier list",
        marked: "The team's tags or note taken from the lab's earlier list",
        tagged: 'The team added the tag {tag}',
        untagged: 'The team removed the tag {tag}',
        'note written': 'The team wrote its note',
        'note cleared': 'The team cleared its note',
        message: 'A {kind} message: {outcome}',
        /** A status whose date alone is known (it came before the history was kept, or from a list). */
        dateOnly: 'the day only',
        /** Anything else that happened to the entry. */
        other: 'Changed by {lab}',
      },
      download: 'Download (JSON)',
      erase: 'Erase me',
      eraseLine: 'Erasing takes the address off the waitlist with everything above.',
      // Shown while the server keeps a continuous backup ({days}: its retention, plus the day a prune may wait).
      backupsLine:
        'Backups keep an encrypted copy of the list for up to {days} days; then your data is gone from them too. If a backup is ever restored, your erasure is made again.',
      confirmTitle: 'Erase all your data?',
      confirmLine:
        'This takes the address off the {lab} waitlist with its answers, its consent record and its history, and cancels any mail not yet sent. It cannot be undone: to join again, sign up again.',
      confirmButton: 'Yes, erase my data',
      keep: 'Keep my data',
      erased: 'Your data is erased',
      erasedLine:
        'The address is off the {lab} waitlist with everything it held. Only a keyed hash of it is kept, so that no old list brings it back; signing up again removes that too.',
      notListed: 'Not on the waitlist',
    },
    invalid: 'This link is not valid',
    invalidLine: 'It may have been cut short or changed. Copy the whole link from the message and try again.',
    gone: 'This address is no longer on the waitlist; nothing to change.',
    /** After a POST of a test send's link (`invite --test`), which changes nothing. */
    test: 'This link came from a test message, so nothing was changed.',
    busy: 'Too many requests',
    busyLine: 'Please wait a minute and try again.',
    home: 'Return to Home',
  },
} as const
