import { useEffect, useState } from 'react'
import type { BackupLine as Line } from '../../server/admin/runtime'
import { send } from './api'

/**
 * The header's backup line (GET /api/backup): when the last piece reached the store, or a warning
 * when there is no store, nothing there yet, a failing upload or no server checking, as of the
 * page's opening. Read once, not polled: a page left open after its session ended (a lost device
 * signed out) would ask again and again and be refused. A read that fails says nothing here: the
 * studio's own notices say why.
 */
export function BackupLine() {
  const [line, setLine] = useState<Line>()
  useEffect(() => {
    let current = true
    send<Line>('/api/backup').then(
      (next) => current && setLine(next),
      () => {},
    )
    return () => {
      current = false
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
