import type { Queryable } from '../../server/db/database'

/**
 * The plans of the statements a call sends, for tests that check which index serves a request: the
 * call runs for real on `db`, its statements are recorded, then each is EXPLAINed with its own
 * parameters.
 */

export interface PlanNode {
  'Node Type': string
  'Relation Name'?: string
  'Index Name'?: string
  Plans?: PlanNode[]
}

/** `db`, recording the statements sent through query() into `into`. */
function recording(db: Queryable, into: { sql: string; params: unknown[] }[]): Queryable {
  return {
    query: (sql, params = []) => {
      into.push({ sql, params })
      return db.query(sql, params)
    },
    run: (sql, params) => db.run(sql, params),
    exec: (sql) => db.exec(sql),
  }
}

/** The plan's nodes, as "Seq Scan on waitlist" or "Index Scan using waitlist_created_at_id". */
export function planNodes(plan: PlanNode): string[] {
  const name = plan['Index Name']
    ? `${plan['Node Type']} using ${plan['Index Name']}`
    : `${plan['Node Type']} on ${plan['Relation Name'] ?? ''}`
  return [name, ...(plan.Plans ?? []).flatMap(planNodes)]
}

/**
 * The plan of each statement `call` sends through query(), as its list of nodes joined by commas;
 * `only` keeps the statements it matches (the reads, say, without a fold's write).
 */
export async function plansOf(
  db: Queryable,
  call: (tx: Queryable) => Promise<unknown>,
  only: (sql: string) => boolean = () => true,
): Promise<string[]> {
  const statements: { sql: string; params: unknown[] }[] = []
  await call(recording(db, statements))
  return Promise.all(
    statements
      .filter(({ sql }) => only(sql))
      .map(async ({ sql, params }) => {
        const [row] = await db.query<{ 'QUERY PLAN': { Plan: PlanNode }[] }>(
          `explain (format json) ${sql}`,
          params,
        )
        const [top] = row?.['QUERY PLAN'] ?? []
        return top ? planNodes(top.Plan).join(', ') : ''
      }),
  )
}
