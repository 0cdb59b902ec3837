/**
 * Where the built site is served from: the Node server (with /mcp and the no-script POST /), or a
 * static host in front of a hosted Supabase project (`npm run build:cdn`), which serves files only.
 */
export type SiteHost = 'server' | 'static'
