import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { adoptToken } from './api'
import { StudioPage } from './studio-page'
import './studio.css'

adoptToken()
const root = document.getElementById('root')
if (root)
  createRoot(root).render(
    <StrictMode>
      <StudioPage />
    </StrictMode>,
  )
