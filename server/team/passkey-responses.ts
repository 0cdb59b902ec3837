import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server'
import * as z from 'zod'

/**
 * What a browser sends back from a ceremony (@simplewebauthn/browser's JSON), checked for its shape
 * and bounded in size before the library reads it, as Epic Stack checks it. The library then checks
 * everything the shape cannot: the challenge, origin, RP ID, signature, attestation.
 */
const base64url = (max: number) =>
  z
    .string()
    .regex(/^[A-Za-z0-9_-]*$/)
    .max(max)
const TRANSPORTS = z.enum(['ble', 'cable', 'hybrid', 'internal', 'nfc', 'smart-card', 'usb'])
const extensionResults = z.object({ credProps: z.object({ rk: z.boolean().optional() }).optional() })

export const RegistrationResponse = z.object({
  id: base64url(1400),
  rawId: base64url(1400),
  type: z.literal('public-key'),
  authenticatorAttachment: z.enum(['cross-platform', 'platform']).optional(),
  clientExtensionResults: extensionResults,
  response: z.object({
    clientDataJSON: base64url(4096),
    attestationObject: base64url(16_384),
    authenticatorData: base64url(8192).optional(),
    transports: z.array(TRANSPORTS).max(10).optional(),
    publicKeyAlgorithm: z.number().int().optional(),
    publicKey: base64url(4096).optional(),
  }),
}) satisfies z.ZodType<RegistrationResponseJSON>

export const AuthenticationResponse = z.object({
  id: base64url(1400),
  rawId: base64url(1400),
  type: z.literal('public-key'),
  authenticatorAttachment: z.enum(['cross-platform', 'platform']).optional(),
  clientExtensionResults: extensionResults,
  response: z.object({
    clientDataJSON: base64url(4096),
    authenticatorData: base64url(8192),
    signature: base64url(2048),
    userHandle: base64url(128).optional(),
  }),
}) satisfies z.ZodType<AuthenticationResponseJSON>
