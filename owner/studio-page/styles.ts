/** The studio's focus ring, on every control a keyboard reaches. */
export const FOCUS = 'focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-accent'
