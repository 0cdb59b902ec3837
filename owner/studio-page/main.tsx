import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { adoptToken, STUDIO_ROOT } from './api'
import { TeamShell } from './team-shell'
import './studio.css'

// One page, two doors to one guard: the local studio (`waitlist studio`, a one-use link that opens
// its owner's session) at the root, and the team studio under /studio on the site (a passkey and a role).
if (!STUDIO_ROOT) adoptToken()
const root = document.getElementById('root')
if (root)
  createRoot(root).render(
    <StrictMode>
      <TeamShell />
    </StrictMode>,
  )
