import { describe, expect, it } from 'vitest'
import { inlineScriptHashes } from '../../server/http/inline-scripts'

// sha256("alert(1)"), base64: the value a CSP hash source for that script must carry.
const ALERT_HASH = "'sha256-bhHHL3z2vDgxUt0W3dWQOrprscmda2Y5pLsLg4GF+pI='"

describe('inlineScriptHashes', () => {
  it('hashes classic and module inline scripts exactly as written', () => {
    expect(inlineScriptHashes('<script>alert(1)</script>')).toEqual([ALERT_HASH])
    expect(inlineScriptHashes('<script type="module" data-x="1">alert(1)</script>')).toEqual([ALERT_HASH])
    // One byte more is another script, with another hash.
    expect(inlineScriptHashes('<script>alert(1) </script>')).not.toEqual([ALERT_HASH])
  })

  it('leaves out external scripts and data blocks such as JSON-LD', () => {
    const html =
      '<script type="module" src="/assets/app.js"></script>' +
      '<script type="application/ld+json">{"@type":"Organization"}</script>'
    expect(inlineScriptHashes(html)).toEqual([])
  })

  it('lists a script shared by several pages once', () => {
    expect(inlineScriptHashes('<script>alert(1)</script><p></p><script>alert(1)</script>')).toEqual([
      ALERT_HASH,
    ])
  })
})
