import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { StudioPage } from './studio-page'
import './studio.css'

const root = document.getElementById('root')
if (root)
  createRoot(root).render(
    <StrictMode>
      <StudioPage />
    </StrictMode>,
  )
