import * as z from 'zod'

/**
 * An optional variable. Unset and empty mean the same thing in a shell: `FOO= npm start` should fall
 * back to the default. Every env schema (env.ts and the rooms' own) reads optional variables so.
 */
export const optional = <T extends z.ZodType>(schema: T) =>
  z.preprocess((value) => (value === '' ? undefined : value), schema.optional())

/**
 * The values a room's piece of the env schema gives (its keys, parsed): what the room's start-up
 * takes, so no room below server/boot needs the whole server's env type.
 */
export type EnvOf<Piece extends z.ZodRawShape> = z.output<z.ZodObject<Piece>>
