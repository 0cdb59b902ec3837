import './styles.css'
import { hydrate } from './hydrate'

// The prerendered HTML paints on its own: the build loads this module only after that first paint
// (build/after-paint-loader-plugin.ts). Until hydration the form is a plain POST form the server
// answers, so an early submit still works.
// Hydrating (the form only: src/hydrate.tsx) in a task of its own, after this chunk's evaluation,
// keeps each task short.
setTimeout(hydrate, 0)
