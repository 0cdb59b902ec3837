/** `1 visit`, `2 visits`, `1,200 deliveries`: what the CLI prints for a count. */
export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count.toLocaleString('en')} ${count === 1 ? one : many}`
}
