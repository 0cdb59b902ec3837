import dns2 from 'dns2'

const { Packet } = dns2

type Response = ReturnType<typeof Packet.createResponseFromRequest>

// RFC 1035's response codes (dns2 3.0.0's types do not declare its Packet.RCODE table).
const RCODE = { SERVFAIL: 2, NXDOMAIN: 3, REFUSED: 5 } as const

// dns2's types ask for a Resource class; its encoder takes the plain records its README shows.
function push(response: Response, record: Record<string, unknown>): void {
  response.answers.push(record as unknown as Response['answers'][number])
}

/** How the local DNS server answers one name: its records, an error code, or never. */
export type Zone =
  | { mx?: string[]; a?: string[]; nullMx?: true; txt?: string[] }
  | { rcode: 'NXDOMAIN' | 'SERVFAIL' | 'REFUSED' }
  | { silent: true }

export interface LocalDns {
  /** `127.0.0.1:port`, for DNS_SERVERS. */
  server: string
  /** Questions asked of each name, counted (a cache is seen in them). */
  asked(name: string): number
  close(): Promise<void>
}

/**
 * A DNS server (dns2) on 127.0.0.1 and a free UDP port: names in `zones` answer as given, any other
 * name has an MX (a domain that receives mail). `zones` is read at each question: a test may
 * change a record between two checks.
 */
export async function startLocalDns(zones: Record<string, Zone>): Promise<LocalDns> {
  const counts = new Map<string, number>()
  const server = dns2.createServer({
    udp: true,
    handle(request, send) {
      const response = Packet.createResponseFromRequest(request)
      const [question] = request.questions
      if (!question) return send(response)
      const { name, type } = question
      counts.set(name, (counts.get(name) ?? 0) + 1)
      const zone = zones[name] ?? { mx: [`mx.${name}`] }
      if ('silent' in zone) return
      if ('rcode' in zone) {
        response.header.rcode = RCODE[zone.rcode]
        return send(response)
      }
      const record = { name, class: Packet.CLASS.IN, ttl: 60 }
      if (type === Packet.TYPE.MX && zone.nullMx) {
        push(response, { ...record, type: Packet.TYPE.MX, exchange: '', priority: 0 })
      }
      if (type === Packet.TYPE.MX) {
        for (const exchange of zone.mx ?? [])
          push(response, { ...record, type: Packet.TYPE.MX, exchange, priority: 10 })
      }
      if (type === Packet.TYPE.TXT) {
        // One TXT record of 255-octet strings, as a DNS host splits a long DKIM key.
        for (const text of zone.txt ?? [])
          push(response, { ...record, type: Packet.TYPE.TXT, data: text.match(/.{1,255}/g) ?? [''] })
      }
      if (type === Packet.TYPE.A) {
        for (const address of zone.a ?? []) push(response, { ...record, type: Packet.TYPE.A, address })
      }
      send(response)
    },
  })
  await server.listen({ udp: { port: 0, address: '127.0.0.1' } })
  const port = server.addresses().udp?.port
  if (!port) throw new Error('the local DNS server has no UDP port')
  return {
    server: `127.0.0.1:${port}`,
    asked: (name) => counts.get(name) ?? 0,
    close: () => server.close(),
  }
}
