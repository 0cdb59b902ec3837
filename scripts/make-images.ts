import { readFile, writeFile } from 'node:fs/promises'
import { chromium, type Page } from '@playwright/test'
import { icons } from '../src/discovery/web-manifest'
import { siteConfig } from '../src/site-config'
import { CHROMIUM_ARGS, findChromium } from '../tests/support/chromium-path'

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

function ogHtml(): string {
  const { labName, tagline, themeColor, ogImage } = siteConfig
  return `<!doctype html><html><body style="margin:0">
  <div style="width:${ogImage.width}px;height:${ogImage.height}px;box-sizing:border-box;padding:80px 96px;
    display:flex;flex-direction:column;justify-content:space-between;background:${themeColor};color:#f8fafc;
    font-family:'DejaVu Sans',Arial,sans-serif">
    <div style="display:flex;align-items:center;gap:28px">
      <div style="width:96px;height:96px;border-radius:22px;box-shadow:0 0 0 3px #334155">
        ${logoSvg.replace('<svg ', '<svg style="width:96px;height:96px;display:block" ')}</div>
      <div style="font-size:48px;font-weight:700;letter-spacing:-1px">${escapeHtml(labName)}</div>
    </div>
    <div style="font-size:76px;font-weight:700;line-height:1.08;letter-spacing:-2px;max-width:980px">${escapeHtml(tagline)}</div>
    <div style="display:flex;align-items:center;gap:16px;font-size:34px;color:#cbd5e1">
      <span style="width:18px;height:18px;border-radius:50%;background:#22c55e;display:inline-block"></span>
      Private beta: request access
    </div>
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
