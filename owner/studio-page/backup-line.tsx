import { useEffect, useState } from 'react'
import type { BackupLine as Line } from '../../server/admin/runtime'
import { send } from './api'

/** Often enough that "40 s ago" stays near the truth, rarely enough to cost nothing (a file read). */
const EVERY_MS = 15_000

/**
 * The header's backup line (GET /api/backup): when the last piece reached the store, or a warning
 * when there is no store, nothing there yet, a failing upload or no server checking. Read again
 * every 15 s. A read that fails says nothing here: the studio's own notices say why.
 */
export function BackupLine() {
  const [line, setLine] = useState<Line>()
  useEffect(() => {
    let current = true
    const read = () =>
      send<Line>('/api/backup').then(
        (next) => current && setLine(next),
        () => {},
      )
    void read()
    const timer = setInterval(read, EVERY_MS)
    return () => {
      current = false
      clearInterval(timer)
    }
  }, [])
  if (!line) return null
  const warning = line.level === 'warning'
  return (
    <p
      className={
        warning ? 'mt-1 rounded border border-danger bg-danger-soft px-2 py-1 text-danger' : 'mt-1 text-soft'
      }
    >
      {warning && <span className="font-semibold">Backup: </span>}
      {line.line}
    </p>
  )
}
