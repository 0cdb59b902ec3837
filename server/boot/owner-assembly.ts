/**
 * What the owner's CLI, an assembly of its own, takes from the server's (ADR 113): the server's
 * env, read as the server reads it, and the build of a missing or stale page before the studio
 * serves it. The .env file is read apart (dot-env-file.ts), on the CLI's first line: the env's
 * schema loads zod, which `--help` never reads (ADR 109).
 */
export { buildIfStale } from './build-if-stale'
export { loadServerEnv, type ServerEnv } from './env'
