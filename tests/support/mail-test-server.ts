import { type SmtpSink, type SmtpSinkOptions, startSmtpSink } from '../../harness/smtp-sink'
import { startTestServer, type TestServer } from '../../harness/test-server'
import { type OpenedDatabase, openDatabase } from '../../server/db/open-database'

/** A test server that mails through a real SMTP server of its own, and its database opened beside it. */
export interface MailTestServer {
  sink: SmtpSink
  server: TestServer
  database: OpenedDatabase
  /** Stops all three, the database first. */
  close(): Promise<void>
}

/**
 * Starts the SMTP sink, then the server sending to it from the lab's address with `env` on top,
 * then opens its database. Whatever started is stopped again if a later step fails.
 */
export async function startMailTestServer(
  env: Record<string, string>,
  sinkOptions?: SmtpSinkOptions,
): Promise<MailTestServer> {
  const sink = await startSmtpSink(sinkOptions)
  let server: TestServer | undefined
  try {
    server = await startTestServer({
      env: { SMTP_URL: sink.url, MAIL_FROM: 'Tessel Labs <beta@tessel-labs.example>', ...env },
    })
    const database = await openDatabase({ dataDir: server.dataDir, purpose: 'test', besideServer: true })
    const started = server
    return {
      sink,
      server: started,
      database,
      async close() {
        await database.close()
        await started.cleanup()
        await sink.close()
      },
    }
  } catch (error) {
    await server?.cleanup()
    await sink.close()
    throw error
  }
}
