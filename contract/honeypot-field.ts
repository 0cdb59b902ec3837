/**
 * The name of the access-request form's trap field: hidden from people, screen readers and the
 * keyboard, so only a bot filling every input ever sends it a value. Shared by the page and by the
 * server's no-script form handler.
 */
export const HONEYPOT_FIELD = 'website'
