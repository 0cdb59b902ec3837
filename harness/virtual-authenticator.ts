import type { BrowserContext, CDPSession, Page } from '@playwright/test'

/** One credential as Chromium's virtual authenticator reports it (CDP WebAuthn.Credential). */
export interface VirtualCredential {
  credentialId: string
  isResidentCredential: boolean
  rpId?: string
  privateKey: string
  userHandle?: string
  signCount: number
}

export interface VirtualAuthenticator {
  session: CDPSession
  id: string
  credentials(): Promise<VirtualCredential[]>
  /** The person touches it from now on (it was added `untouched`). */
  touch(): Promise<void>
}

/**
 * A platform authenticator in Chromium, through the DevTools protocol (WebAuthn.enable,
 * WebAuthn.addVirtualAuthenticator): CTAP2, resident keys, user verification, and a person who
 * always touches it (unless `untouched`: a page's autofill request then waits, as a browser's does
 * until the person picks the passkey). `carrying` puts credentials of another authenticator in it,
 * so a fresh browser context signs in with the same passkey, as the same device would.
 */
export async function addVirtualAuthenticator(
  context: BrowserContext,
  page: Page,
  carrying: readonly VirtualCredential[] = [],
  untouched = false,
): Promise<VirtualAuthenticator> {
  const session = await context.newCDPSession(page)
  await session.send('WebAuthn.enable', { enableUI: false })
  const { authenticatorId: id } = await session.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: !untouched,
    },
  })
  for (const credential of carrying)
    await session.send('WebAuthn.addCredential', { authenticatorId: id, credential })
  return {
    session,
    id,
    credentials: async () =>
      (await session.send('WebAuthn.getCredentials', { authenticatorId: id })).credentials,
    touch: async () => {
      await session.send('WebAuthn.setAutomaticPresenceSimulation', { authenticatorId: id, enabled: true })
    },
  }
}
