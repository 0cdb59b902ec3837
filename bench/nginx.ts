import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { chmod, cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir, userInfo } from 'node:os'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { freePort } from '../harness/postgres-cluster'
import { ANON_KEY_PLACEHOLDER } from '../server/http/static-site'

export const NGINX = '/usr/sbin/nginx'
export const NGINX_HINT = 'nginx is absent: apt-get install -y nginx (Debian) to print the ratio against it'

export interface RunningNginx {
  url: string
  stop(): Promise<void>
}

/**
 * Debian's nginx serving a copy of dist on a free loopback port: one worker (like the one Node
 * process), keep-alive, gzip_static on the build's .gz files, the same cache headers as ours.
 * Undefined when nginx is not installed.
 */
export async function startNginx(distDir: string, anonKey: string): Promise<RunningNginx | undefined> {
  if (!existsSync(NGINX)) return undefined
  const prefix = await mkdtemp(join(tmpdir(), 'lab-site-nginx-'))
  const root = join(prefix, 'dist')
  await cp(distDir, root, { recursive: true })
  // The page as our server sends it: the anon key written in, compressed once up front.
  const html = (await readFile(join(root, 'index.html'), 'utf8')).replaceAll(ANON_KEY_PLACEHOLDER, anonKey)
  await writeFile(join(root, 'index.html'), html)
  await writeFile(join(root, 'index.html.gz'), gzipSync(html, { level: 9 }))
  await chmod(prefix, 0o755)
  const port = await freePort()
  const conf = `
worker_processes 1;
daemon off;
pid ${prefix}/nginx.pid;
error_log ${prefix}/error.log error;
${userInfo().uid === 0 ? 'user root root;' : ''}
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${prefix}/body;
  proxy_temp_path ${prefix}/proxy;
  fastcgi_temp_path ${prefix}/fastcgi;
  uwsgi_temp_path ${prefix}/uwsgi;
  scgi_temp_path ${prefix}/scgi;
  types { text/html html; text/javascript js; text/css css; image/svg+xml svg; image/png png; }
  sendfile on;
  keepalive_requests 1000000;
  gzip_static on;
  gzip_vary on;
  server {
    listen 127.0.0.1:${port};
    root ${root};
    location = / { add_header Cache-Control no-cache; try_files /index.html =404; }
    location /assets/ { add_header Cache-Control "public, max-age=31536000, immutable"; }
  }
}
`
  await writeFile(join(prefix, 'nginx.conf'), conf)
  const child: ChildProcess = spawn(
    NGINX,
    ['-p', prefix, '-c', join(prefix, 'nginx.conf'), '-e', join(prefix, 'error.log')],
    {
      stdio: 'ignore',
    },
  )
  const url = `http://127.0.0.1:${port}`
  const deadline = Date.now() + 10_000
  for (;;) {
    const up = await fetch(`${url}/`).then(
      (response) => response.ok,
      () => false,
    )
    if (up) break
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL')
      const log = await readFile(join(prefix, 'error.log'), 'utf8').catch(() => '')
      await rm(prefix, { recursive: true, force: true })
      throw new Error(`nginx did not start:\n${log}`)
    }
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  return {
    url,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve))
        child.kill('SIGQUIT')
        await exited
      }
      await rm(prefix, { recursive: true, force: true })
    },
  }
}
