import { PreflightPanel } from './preflight-panel'

/**
 * Settings, for members and owners: today the mail's, the deliverability preflight the running
 * server answers (issue 66) with the records to publish. The settings themselves live in the
 * server's environment (docs/configuration.md); the studio shows what they give.
 */
export function SettingsPage() {
  return (
    <section
      aria-labelledby="settings-heading"
      className="space-y-4 rounded-lg border border-line bg-panel p-4"
    >
      <h1 id="settings-heading" className="text-2xl font-bold">
        Settings
      </h1>
      <p className="text-sm text-soft">
        Mail: whether the sending domain's DNS lets invitations reach the inbox (SPF, DKIM, DMARC, the bounce
        domain's MX, one-click unsubscribe), as <code>waitlist preflight</code> prints it. A batch waits for a
        passing preflight; the records to publish are named below. The settings themselves are the server's
        environment: MAIL_FROM, MAIL_RETURN_PATH, DKIM_SELECTOR, DNS_SERVERS.
      </p>
      <PreflightPanel heading="h2" />
    </section>
  )
}
