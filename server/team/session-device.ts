/**
 * A session's device in a few words ("Firefox on macOS"), from the sign-in's User-Agent: enough for
 * a member to tell their laptop from their phone on the passkeys page. The header itself is never
 * kept (docs/privacy.md): it names versions and builds that single a browser out.
 */

// Order matters: Edge and Opera say Chrome too, Chrome says Safari, and iOS browsers say Safari.
const BROWSERS: readonly (readonly [RegExp, string])[] = [
  [/\bEdg(e|A|iOS)?\//, 'Edge'],
  [/\b(OPR|Opera)\//, 'Opera'],
  [/\b(Firefox|FxiOS)\//, 'Firefox'],
  [/\b(Chrome|Chromium|HeadlessChrome|CriOS)\//, 'Chrome'],
  [/\bVersion\/[\d.]+.*\bSafari\//, 'Safari'],
]

const SYSTEMS: readonly (readonly [RegExp, string])[] = [
  [/\biPhone\b/, 'iPhone'],
  [/\biPad\b/, 'iPad'],
  [/\bAndroid\b/, 'Android'],
  [/\bCrOS\b/, 'ChromeOS'],
  [/\bWindows\b/, 'Windows'],
  [/\bMac OS X\b|\bMacintosh\b/, 'macOS'],
  [/\bLinux\b/, 'Linux'],
]

const first = (table: readonly (readonly [RegExp, string])[], text: string) =>
  table.find(([pattern]) => pattern.test(text))?.[1]

/** "Browser on system", either part "unknown" when the header does not say; never more than 40 characters. */
export function sessionDevice(userAgent: string | undefined): string {
  // A real User-Agent is a few hundred characters; a longer one is not read further.
  const text = (userAgent ?? '').slice(0, 512)
  const browser = first(BROWSERS, text)
  const system = first(SYSTEMS, text)
  if (!browser && !system) return 'An unknown browser'
  return `${browser ?? 'A browser'} on ${system ?? 'an unknown system'}`
}
