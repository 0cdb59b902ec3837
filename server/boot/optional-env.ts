import { z } from 'zod'

/**
 * An optional variable. Unset and empty mean the same thing in a shell: `FOO= npm start` should fall
 * back to the default. Every env schema (env.ts and the rooms' own) reads optional variables so.
 */
export const optional = <T extends z.ZodType>(schema: T) =>
  z.preprocess((value) => (value === '' ? undefined : value), schema.optional())
