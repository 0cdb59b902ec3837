import type { Plugin } from 'vite'
import { AGENT_MEDIA_TYPES } from '../contract/agent-media-types.ts'
import { siteConfig } from '../contract/site-config.ts'
import { SITE_URL_PLACEHOLDER } from '../contract/site-url.ts'
import { agentFiles } from '../src/discovery/agent-files.ts'
import type { SiteHost } from '../src/discovery/site-host.ts'

/**
 * Writes llms.txt, llms-full.txt, index.md, /.well-known/ai-catalog.json, robots.txt, sitemap.xml and
 * site.webmanifest into the build from contract/site-config.ts, with the site URL left as a placeholder
 * for the server to fill in (a static host's build fills it itself: static-host-plugin.ts). The dev
 * server answers the same paths with its own address.
 */
export function agentFilesPlugin(host: SiteHost = 'server'): Plugin {
  return {
    name: 'agent-files',
    generateBundle() {
      for (const { fileName, source } of agentFiles(siteConfig, host))
        this.emitFile({ type: 'asset', fileName, source })
    },
    configureServer(server) {
      server.middlewares.use((request, response, next) => {
        const path = request.url?.split('?')[0]
        const file = agentFiles(siteConfig).find((candidate) => `/${candidate.fileName}` === path)
        if (!file) return next()
        const origin = `http://${request.headers.host ?? 'localhost'}`
        response.setHeader('Content-Type', contentTypeOf(file.fileName))
        response.end(file.source.replaceAll(SITE_URL_PLACEHOLDER, origin))
      })
    },
  }
}

function contentTypeOf(fileName: string): string {
  const agentType = AGENT_MEDIA_TYPES[`/${fileName}`]
  if (agentType) return agentType
  if (fileName.endsWith('.json')) return 'application/json; charset=utf-8'
  if (fileName.endsWith('.webmanifest')) return 'application/manifest+json; charset=utf-8'
  if (fileName.endsWith('.xml')) return 'application/xml; charset=utf-8'
  if (fileName.endsWith('.md')) return 'text/markdown; charset=utf-8'
  return 'text/plain; charset=utf-8'
}
