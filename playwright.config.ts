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
  reporter: process.env.CI ? [['list']] : [['list']],
  use: {
    // Recording a trace for every test cost site.spec.ts 40% of its time (88 s against 51 s): off
    // unless asked for, as when a failure needs one (E2E_TRACE=1 npm run test:e2e).
    trace: process.env.E2E_TRACE ? 'retain-on-failure' : 'off',
    launchOptions: { executablePath: findChromium(), args: CHROMIUM_ARGS },
  },
})
