/**
 * The bench's yardstick: the waitlist insert on bare `node:http` and node-postgres, with the same
 * work per request as the server's (parse the body; begin, role settings, insert, commit pipelined
 * in one round trip on a pooled client of the same size) and nothing else; and the built page,
 * brotli-compressed once at start and sent from memory (the launch spike's page loads).
 *   DATABASE_URL=postgres://… PORT=8080 node --import tsx bench/baseline-server.ts
 */
import { readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { join } from 'node:path'
import { brotliCompressSync } from 'node:zlib'
import pg from 'pg'
import { DIST_DIR } from '../server/base/paths'

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10, pipeline: true })
const ROLE =
  "select set_config('search_path','public, extensions',true), set_config('role',$1,true), set_config('request.jwt.claims',$2,true)"
const page = brotliCompressSync(readFileSync(join(DIST_DIR, 'index.html')))
const PAGE_HEADERS = { 'content-type': 'text/html; charset=utf-8', 'content-encoding': 'br' }

async function insert(email: unknown) {
  const client = await pool.connect()
  const sent = [
    client.query('begin'),
    client.query(ROLE, ['anon', '{"role":"anon"}']),
    client.query('insert into public.waitlist (email) values ($1)', [email]),
    client.query('commit'),
  ]
  const results = await Promise.allSettled(sent)
  client.release()
  const failed = results.find((result) => result.status === 'rejected')
  if (failed) throw failed.reason
}

createServer(async (request, response) => {
  if (request.method === 'GET') {
    response.writeHead(200, PAGE_HEADERS).end(page)
    return
  }
  let body = ''
  for await (const chunk of request) body += chunk
  try {
    await insert((JSON.parse(body) as { email?: unknown }).email)
    response.writeHead(201).end()
  } catch (error) {
    response.writeHead((error as { code?: string }).code === '23505' ? 409 : 400).end()
  }
}).listen(Number(process.env.PORT), '127.0.0.1', () =>
  console.log(`Serving http://127.0.0.1:${process.env.PORT}`),
)
