import { defineConfig } from '@playwright/test'
import { CHROMIUM_ARGS, findChromium } from './harness/chromium-path'

export default defineConfig({
  testDir: 'tests/e2e',
  globalSetup: './tests/e2e/global-setup.ts',
  forbidOnly: Boolean(process.env.CI),
  retries: 0,
  workers: 2,
  // Tests, not files, are shared out, so neither worker idles while the other ends a long file; the
  // studio's serial groups (one per backend) each stay together on one worker.
  fullyParallel: true,
  timeout: 60_000,
  // A studio's answer crosses two processes and PostgreSQL; with both workers' Chromiums busy on two
  // cores, one took over the default 5 s in a fresh clone's run (issue 52).
  expect: { timeout: 10_000 },
  reporter: process.env.CI ? [['list']] : [['list']],
  use: {
    // Recording a trace for every test cost site.spec.ts 40% of its time (88 s against 51 s): off
    // unless asked for, as when a failure needs one (E2E_TRACE=1 npm run test:e2e).
    trace: process.env.E2E_TRACE ? 'retain-on-failure' : 'off',
    // The hero's endless animations keep an open page repainting in software: about 0.45 of a core
    // each, 0.07 without them (Chromium's CPU over 8 s on /), so two workers spent most of a core on
    // them. Tests ask for reduced motion; the ones about motion set their own wish (look.spec.ts).
    reducedMotion: 'reduce',
    launchOptions: { executablePath: findChromium(), args: CHROMIUM_ARGS },
  },
})
