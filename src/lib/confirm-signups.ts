import { CONFIRM_SIGNUPS_META } from '../../contract/waitlist-outcome'

/** Whether the server confirms signups by mail: it says so in the page it serves (static-site.ts). */
export const confirmSignups = () =>
  document.querySelector<HTMLMetaElement>(`meta[name="${CONFIRM_SIGNUPS_META}"]`)?.content === 'on'
