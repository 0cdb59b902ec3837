import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { adoptToken, STUDIO_ROOT } from './api'
import { StudioPage } from './studio-page'
import { TeamShell } from './team-shell'
import './studio.css'

// One page, two doors: the local studio (`waitlist studio`, its token in the URL) at the root, and
// the team studio under /studio on the site (a passkey and a role).
if (!STUDIO_ROOT) adoptToken()
const root = document.getElementById('root')
if (root) createRoot(root).render(<StrictMode>{STUDIO_ROOT ? <TeamShell /> : <StudioPage />}</StrictMode>)
