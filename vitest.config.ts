import { availableParallelism } from 'node:os'
import react from '@vitejs/plugin-react'
import { defineConfig } from 'vitest/config'

/** The long reliability suites, kept out of `npm test` so a developer runs it often (npm run test:slow). */
const SLOW_SUITES = [
  'tests/reliability/crash.test.ts',
  'tests/reliability/disk-full.test.ts',
  'tests/reliability/bad-input.test.ts',
  'tests/reliability/leak.test.ts',
  'tests/reliability/load.test.ts',
  'tests/reliability/webhooks.test.ts',
  'tests/reliability/webhooks-scale-out.test.ts',
  'tests/reliability/scale-out.test.ts',
  'tests/reliability/managed-postgres-15.test.ts',
  'tests/reliability/managed-postgres-18.test.ts',
  'tests/reliability/data-dir-without-sockets.test.ts',
  // The socket fallback on FUSE (python3-fusepy); npm test checks it on bpffs, which needs nothing.
  'tests/reliability/socket-fallback-fuse.test.ts',
  'tests/reliability/scale-out-pgbouncer.test.ts',
  'tests/reliability/hangup.test.ts',
  // The README's and the deploy guide's commands on a fresh copy of the tree (installs: minutes).
  'tests/docs/fresh-clone.test.ts',
  'tests/reliability/slow-clients.test.ts',
  'tests/reliability/invitations.test.ts',
  'tests/reliability/sources-launch-day.test.ts',
  'tests/reliability/big-list.test.ts',
  // 100,000 entries loaded as the million bench loads them (~15-20 s), for the first page's plan.
  'tests/reliability/first-page-plan.test.ts',
  // 10,000 page loads with 15 KB User-Agents: about 30-50 s on two busy cores.
  'tests/reliability/long-user-agents.test.ts',
  'tests/reliability/confirmation-flood.test.ts',
  // A batch of 40 paced invitations that bounce, paused and resumed (~50 s).
  'tests/reliability/mail-pause.test.ts',
  // Backups taken while signups go on, restored onto new data directories (~45 s each); a lost
  // disk a minute after the last signup (~100 s: archive_timeout is 60 s).
  'tests/reliability/backup-restore.test.ts',
  'tests/reliability/continuous-backup.test.ts',
  'tests/reliability/lost-disk.test.ts',
  'tests/reliability/backup-to-s3.test.ts',
  // restore --at: signups, a moment, more signups, the WAL archived, restored to the moment (~40 s).
  'tests/reliability/point-in-time.test.ts',
]

/** `vitest run --project slow` or `--project container`: the long suites, which time themselves. */
const LONG_RUN = ['slow', 'container'].some((name) => process.argv.includes(name))

export default defineConfig({
  test: {
    globalSetup: ['tests/setup/global-setup.ts'],
    // Vitest's default is one worker less than the cores: a single one on two. npm test's suites
    // mostly wait on child processes (servers, PostgreSQL, the CLI) and fsync, so one file more than
    // the cores keeps them busy: on two cores, three took 132 s where two took 141 s (issue 52).
    // test:slow's files load the machine themselves (a launch spike, crashes under load): two.
    maxWorkers: LONG_RUN ? Math.max(2, availableParallelism() - 1) : availableParallelism() + 1,
    projects: [
      {
        plugins: [react()],
        test: {
          name: 'unit',
          environment: 'jsdom',
          include: ['src/**/*.test.{ts,tsx}', 'contract/**/*.test.ts'],
          setupFiles: ['tests/setup/unit-setup.ts'],
        },
      },
      {
        test: {
          name: 'server',
          environment: 'node',
          // One worker process runs file after file, its imports loaded once: no suite here mocks
          // modules or changes globals, and each stops what it starts (afterAll).
          isolate: false,
          include: [
            'tests/server/**/*.test.ts',
            'tests/security/**/*.test.ts',
            'server/**/*.test.ts',
            'owner/**/*.test.ts',
            'scripts/**/*.test.ts',
          ],
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
      {
        test: {
          // The image built and run with podman or docker (npm run test:container): minutes on a fresh
          // machine, killed under load among its tests, and the only suite that needs podman, Caddy and
          // docker-compose; so it runs after the slow suites in npm run test:slow, not in npm test.
          name: 'container',
          environment: 'node',
          include: ['tests/container/**/*.test.ts'],
          testTimeout: 180_000,
          hookTimeout: 16 * 60_000,
        },
      },
      {
        test: {
          name: 'reliability',
          environment: 'node',
          // As the server project: file after file in one worker process.
          isolate: false,
          include: ['tests/reliability/**/*.test.ts'],
          exclude: SLOW_SUITES,
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
      {
        test: {
          // npm run test:slow: crashes, a full disk, load, leaks and notifications through failures,
          // each waiting on real processes and fsync; CI runs them after npm test.
          name: 'slow',
          environment: 'node',
          include: SLOW_SUITES,
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
})
