import { readFile, writeFile } from 'node:fs/promises'
import { chromium, type Page } from '@playwright/test'
import { createElement } from 'react'
import { renderToStaticMarkup } from 'react-dom/server'
import { siteConfig } from '../contract/site-config'
import { CHROMIUM_ARGS, findChromium } from '../harness/chromium-path'
import { icons } from '../src/discovery/web-manifest'
import { AgentGraph } from '../src/sections/agent-graph'

/**
 * Renders the link-preview image and the favicon set from the logo and the site config, into
 * public/: `npx tsx scripts/make-images.ts`. The outputs are committed; run this again after
 * changing the logo, the lab's name or its tagline.
 */
const PUBLIC = new URL('../public/', import.meta.url)
const logoSvg = await readFile(new URL(siteConfig.logo.src.slice(1), PUBLIC), 'utf8')
const escapeHtml = (text: string) => text.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`)

function iconHtml(size: number, background: string): string {
  return `<!doctype html><html><body style="margin:0;background:${background}">
    <div style="width:${size}px;height:${size}px">${logoSvg.replace('<svg ', `<svg style="width:${size}px;height:${size}px;display:block" `)}</div>
  </body></html>`
}

/** The dark scheme's tokens (src/styles.css), for the classes the hero graphic uses. */
const DARK = {
  page: '#090d13',
  ink: '#e9eef4',
  soft: '#9ba8b7',
  line: '#1c2530',
  panel: '#0f151e',
  accent: '#4ade80',
  signal: '#22c55e',
}

/** The link preview: the page's dark scheme, its tile motif, headline and hero graphic. */
function ogHtml(): string {
  const { labName, tagline, ogImage } = siteConfig
  const graph = renderToStaticMarkup(createElement(AgentGraph))
  const classes = `svg{display:block;width:440px;height:auto}
    .stroke-line{stroke:${DARK.line}}.stroke-accent{stroke:${DARK.accent}}.stroke-soft{stroke:${DARK.soft}}
    .fill-panel{fill:${DARK.panel}}.fill-ink{fill:${DARK.ink}}.fill-page{fill:${DARK.page}}.fill-signal{fill:${DARK.signal}}
    .opacity-25{opacity:.25}`
  return `<!doctype html><html><head><style>${classes}</style></head><body style="margin:0">
  <div style="position:relative;width:${ogImage.width}px;height:${ogImage.height}px;box-sizing:border-box;
    padding:72px 80px;display:flex;align-items:center;justify-content:space-between;overflow:hidden;
    background:${DARK.page};color:${DARK.ink};font-family:'Liberation Sans',Arial,sans-serif">
    <div style="position:absolute;inset:0;background-image:linear-gradient(to right,${DARK.line} 1px,transparent 1px),
      linear-gradient(to bottom,${DARK.line} 1px,transparent 1px);background-size:56px 56px;
      -webkit-mask-image:radial-gradient(ellipse 70% 70% at 78% 45%,#000 10%,transparent 75%)"></div>
    <div style="position:relative;display:flex;flex-direction:column;justify-content:space-between;height:100%;max-width:600px">
      <div style="display:flex;align-items:center;gap:20px">
        <div style="width:64px;height:64px;border-radius:14px;box-shadow:0 0 0 2px #334155">
          ${logoSvg.replace('<svg ', '<svg style="width:64px;height:64px;display:block" ')}</div>
        <div style="font-size:38px;font-weight:700;letter-spacing:-0.5px">${escapeHtml(labName)}</div>
      </div>
      <div style="font-size:72px;font-weight:700;line-height:1.04;letter-spacing:-2.4px">${escapeHtml(
        tagline,
      ).replace(/(\S+-\S+)/, '<span style="white-space:nowrap">$1</span>')}</div>
      <div style="display:flex;align-items:center;gap:14px;font-size:28px;color:${DARK.soft}">
        <span style="width:14px;height:14px;border-radius:50%;background:${DARK.signal};display:inline-block"></span>
        Private beta: request access
      </div>
    </div>
    <div style="position:relative">${graph}</div>
  </div></body></html>`
}

async function shoot(page: Page, html: string, width: number, height: number, transparent: boolean) {
  await page.setViewportSize({ width, height })
  await page.setContent(html)
  return page.screenshot({ type: 'png', omitBackground: transparent, clip: { x: 0, y: 0, width, height } })
}

/** An .ico holding one PNG image, which every current browser reads. */
function icoOf(png: Buffer, size: number): Buffer {
  const header = Buffer.alloc(22)
  header.writeUInt16LE(0, 0) // reserved
  header.writeUInt16LE(1, 2) // type: icon
  header.writeUInt16LE(1, 4) // one image
  header.writeUInt8(size, 6)
  header.writeUInt8(size, 7)
  header.writeUInt8(0, 8) // no palette
  header.writeUInt8(0, 9)
  header.writeUInt16LE(1, 10) // colour planes
  header.writeUInt16LE(32, 12) // bits per pixel
  header.writeUInt32LE(png.length, 14)
  header.writeUInt32LE(22, 18) // image data offset
  return Buffer.concat([header, png])
}

const browser = await chromium.launch({ executablePath: findChromium(), args: CHROMIUM_ARGS })
try {
  const page = await browser.newPage()
  const out = (path: string) => new URL(path.slice(1), PUBLIC)
  const { ogImage, themeColor } = siteConfig
  await writeFile(out(ogImage.src), await shoot(page, ogHtml(), ogImage.width, ogImage.height, false))
  await writeFile(out(icons.png192), await shoot(page, iconHtml(192, 'transparent'), 192, 192, true))
  await writeFile(out(icons.png512), await shoot(page, iconHtml(512, 'transparent'), 512, 512, true))
  // iOS rounds the corners itself and shows transparency as black: a full square.
  await writeFile(out(icons.appleTouch), await shoot(page, iconHtml(180, themeColor), 180, 180, false))
  await writeFile(out(icons.ico), icoOf(await shoot(page, iconHtml(32, 'transparent'), 32, 32, true), 32))
  await writeFile(out(icons.svg), logoSvg)
  console.log('Wrote public/og-image.png and the favicon set')
} finally {
  await browser.close()
}
