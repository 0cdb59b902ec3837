/** A wait as people write it: "1 second", "12 seconds" (the 429 hints and the MCP refusal). */
export function seconds(count: number): string {
  return count === 1 ? '1 second' : `${count} seconds`
}
