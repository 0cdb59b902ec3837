import { createElement } from 'react'
import { renderToStaticMarkup } from 'react-dom/server'
import { describe, expect, it } from 'vitest'
import { SignupsChart } from './signups-chart'

/** The words under the chart, as a reader sees them (tags dropped). */
function wordsOf(props: Parameters<typeof SignupsChart>[0]): string {
  const html = renderToStaticMarkup(createElement(SignupsChart, props))
  return html
    .replace(/<svg.*<\/svg>/s, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
}

const days = [
  { day: '2024-11-23', count: 4 },
  { day: '2024-11-24', count: 13 },
  { day: '2024-11-25', count: 0 },
]
const base = { days, range: '30' as const, onRangeChange() {} }

describe("the studio's chart says each peak once", () => {
  it('signups alone: "most in a day" under the bars', () => {
    const words = wordsOf(base)
    expect(words.match(/13/g)).toHaveLength(1)
    expect(words).toContain('most in a day: 13')
  })

  it('with visits: each series its own peak in the legend, and no second "13" below', () => {
    const words = wordsOf({ ...base, visits: [{ day: '2024-11-24', visits: 40, visitors: 30 }] })
    expect(words).toContain('visits (most in a day: 40)')
    expect(words).toContain('signups (most in a day: 13)')
    expect(words.match(/13/g)).toHaveLength(1)
    expect(words).not.toContain('tallest bar')
  })

  it('no signups at all: the peak reads 0, not 1', () => {
    const words = wordsOf({ ...base, days: days.map((day) => ({ ...day, count: 0 })) })
    expect(words).toContain('most in a day: 0')
  })
})
