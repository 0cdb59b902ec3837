import type { ChildProcess } from 'node:child_process'

/**
 * Collects everything a child prints (stdout and stderr), and resolves with the first capture of
 * `pattern` in it: the line a server prints once it listens. Rejects, with the output, if the
 * child exits first or `timeoutMs` passes.
 */
export function watchOutput(child: ChildProcess, pattern: RegExp, timeoutMs: number, what: string) {
  let output = ''
  const found = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what} did not start in time:\n${output}`)), timeoutMs)
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      const match = pattern.exec(output)
      if (match?.[1]) {
        clearTimeout(timer)
        resolve(match[1])
      }
    }
    child.stdout?.on('data', onData)
    child.stderr?.on('data', onData)
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`${what} exited with code ${code} before serving:\n${output}`))
    })
  })
  return { found, output: () => output }
}
