/**
 * The CLI's exit statuses, one rule for every command, so a script (`set -e`) can trust them:
 *   0: the command did everything it could, and printed why it left each other entry alone
 *      (already invited, unsubscribed, not on the list…);
 *   1: it did nothing of what was asked (every entry it was given was left alone, none matched, or
 *      the database could not be reached);
 *   2: a usage or configuration error: nothing was tried.
 * A dry run exits by what the command would do (0 when it would do any of it, 1 when none), so
 * `invite … --dry-run && invite …` stops where the real run would do nothing; a configuration
 * error it only reports (the placeholder beta link), as the owner looks before setting it.
 */
export const EXIT = { done: 0, nothingDone: 1, usage: 2 } as const

export type ExitStatus = (typeof EXIT)[keyof typeof EXIT]

/**
 * How a command that acts on entries ends, once it has printed why it left each of the others
 * alone: 0 when it did any of what was asked (`done` entries), 1 when none.
 */
export const exitFor = (done: number): ExitStatus => (done > 0 ? EXIT.done : EXIT.nothingDone)

/** The rule in the words of `--help`. */
export const EXIT_HELP = `Exit status, for every command: 0 when it did everything it could, and printed why it left
each other entry alone (a batch with some refused is a good batch); 1 when it did nothing of what
was asked (every entry left alone, none matched, the database unreachable, DATA_DIR held by another
command); 2 on a usage or configuration error (a bad flag, a bad variable, the placeholder beta
link), when nothing was tried. A dry run exits 0 when the command would do any of it, else 1.
`
