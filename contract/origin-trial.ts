/**
 * A Chrome origin-trial token (WEBMCP_ORIGIN_TRIAL_TOKEN) as the Origin Trials console gives it:
 * base64. Checked before it goes into a header (the server) or an attribute (the static host's
 * build) as it is, so a pasted line break or quote fails at start-up instead of in a response.
 */
export const ORIGIN_TRIAL_TOKEN = /^[A-Za-z0-9+/]+={0,2}$/
export const ORIGIN_TRIAL_TOKEN_RULE = 'must be the token as Chrome’s Origin Trials console gives it'
