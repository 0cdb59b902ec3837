import { render, screen } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import { siteConfig } from '../../contract/site-config'
import { SiteFooter } from './site-footer'

const original = siteConfig.statusLine

afterEach(() => {
  siteConfig.statusLine = original
})

describe('the footer', () => {
  it("shows the specification's status words, from the site config", () => {
    render(<SiteFooter />)
    expect(screen.getByRole('contentinfo').textContent).toBe(`${siteConfig.city}All Systems Operational`)
  })

  it("says what the config says, with the lab's other words", () => {
    siteConfig.statusLine = 'Degraded performance'
    render(<SiteFooter />)
    expect(screen.getByRole('contentinfo').textContent).toBe(`${siteConfig.city}Degraded performance`)
  })
})
