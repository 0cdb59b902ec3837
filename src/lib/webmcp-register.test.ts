import { afterEach, describe, expect, it, vi } from 'vitest'
import { requestAccessTool, toolResultOf } from '../../contract/agent-tool'
import { registerRequestAccessTool } from './webmcp-register'

type Registered = {
  name: string
  title: string
  annotations: Record<string, boolean>
  execute: (input: Record<string, unknown>, call?: { signal?: AbortSignal }) => Promise<unknown>
}

function installContext(
  on: 'navigator' | 'document',
  registerTool: (tool: Registered, options?: object) => unknown,
) {
  const context = { registerTool: vi.fn(registerTool), unregisterTool: vi.fn() }
  Object.defineProperty(on === 'navigator' ? navigator : document, 'modelContext', {
    configurable: true,
    value: context,
  })
  return context
}

/** Registers the tool with a model context on `document` and returns what the page registered. */
function registeredWith(submit: Parameters<typeof registerRequestAccessTool>[0]): Registered | undefined {
  let tool: Registered | undefined
  installContext('document', (registered) => {
    tool = registered
  })
  registerRequestAccessTool(submit)
  return tool
}

afterEach(() => {
  Reflect.deleteProperty(navigator, 'modelContext')
  Reflect.deleteProperty(document, 'modelContext')
})

describe('registerRequestAccessTool', () => {
  it('does nothing, and throws nothing, in a browser without WebMCP', () => {
    const submit = vi.fn()
    const unregister = registerRequestAccessTool(submit)
    expect(() => unregister()).not.toThrow()
    expect(submit).not.toHaveBeenCalled()
  })

  it('prefers document.modelContext (Chrome 150+) and passes an abort signal that unregistering fires', () => {
    const fromNavigator = installContext('navigator', () => undefined)
    let signal: AbortSignal | undefined
    const fromDocument = installContext('document', (_tool, options) => {
      signal = (options as { signal: AbortSignal }).signal
      return Promise.resolve()
    })
    const unregister = registerRequestAccessTool(vi.fn())
    expect(fromNavigator.registerTool).not.toHaveBeenCalled()
    expect(fromDocument.registerTool).toHaveBeenCalledOnce()
    expect(signal?.aborted).toBe(false)
    unregister()
    expect(signal?.aborted).toBe(true)
  })

  it('runs execute through the given submit and answers with the status and the spec’s words', async () => {
    let tool: Registered | undefined
    installContext('navigator', (registered) => {
      tool = registered
    })
    const submit = vi.fn().mockResolvedValue({ status: 'already_registered' })
    registerRequestAccessTool(submit)
    expect(tool?.name).toBe(requestAccessTool.name)
    expect(await tool?.execute({ email: 'Ada@Example.com' })).toEqual({
      status: 'already_registered',
      message: 'Already on the waitlist! This email is already registered for beta access.',
    })
    // The insert names the agent's door, for the entry's consent record.
    expect(submit).toHaveBeenCalledWith('Ada@Example.com', { byAgent: true })
    await tool?.execute({ email: 42 })
    expect(submit).toHaveBeenLastCalledWith('', { byAgent: true })
  })

  it('gives the tool a title and says it has consequences (it writes and may send an e-mail)', () => {
    const tool = registeredWith(vi.fn())
    expect(tool?.title).toBe('Request beta access')
    expect(tool?.annotations).toEqual({
      readOnlyHint: false,
      consequentialHint: true,
      untrustedContentHint: false,
    })
  })

  it('sends nothing for a call the agent has already given up on', async () => {
    const submit = vi.fn().mockResolvedValue({ status: 'submitted' })
    const tool = registeredWith(submit)
    const controller = new AbortController()
    controller.abort(new DOMException('The agent stopped', 'AbortError'))
    await expect(tool?.execute({ email: 'ada@example.com' }, { signal: controller.signal })).rejects.toThrow(
      'The agent stopped',
    )
    expect(submit).not.toHaveBeenCalled()
  })

  it('answers the abort at once when the agent gives up mid-request, without waiting for the request', async () => {
    // A request that never ends: the abort alone can settle the call.
    const submit = vi.fn(() => new Promise<undefined>(() => {}))
    const tool = registeredWith(submit)
    const controller = new AbortController()
    const call = tool?.execute({ email: 'ada@example.com' }, { signal: controller.signal })
    expect(submit).toHaveBeenCalledWith('ada@example.com', { byAgent: true })
    controller.abort(new DOMException('The agent stopped', 'AbortError'))
    await expect(call).rejects.toThrow('The agent stopped')
  })

  it('answers as usual when the signal is never aborted', async () => {
    const tool = registeredWith(vi.fn().mockResolvedValue({ status: 'submitted' }))
    const result = await tool?.execute({ email: 'ada@example.com' }, { signal: new AbortController().signal })
    expect(result).toMatchObject({ status: 'submitted' })
  })

  it('swallows a refusal, synchronous or not, and then leaves the other tool of that name alone', async () => {
    const rejecting = installContext('document', () =>
      Promise.reject(new DOMException('Duplicate tool name')),
    )
    const unregister = registerRequestAccessTool(vi.fn())
    await Promise.resolve()
    await Promise.resolve()
    unregister()
    expect(rejecting.unregisterTool).not.toHaveBeenCalled()

    installContext('document', () => {
      throw new DOMException('Duplicate tool name')
    })
    expect(() => registerRequestAccessTool(vi.fn())()).not.toThrow()
  })
})

describe('the tool’s answers to the lab’s questions', () => {
  type WithInputSchema = Registered & { inputSchema: { properties: Record<string, unknown> } }

  it('refuses a wrong answer with the reason, without calling submit (so without any request)', async () => {
    const submit = vi.fn()
    const tool = registeredWith(submit)
    expect(await tool?.execute({ email: 'ada@example.com', role: 'Astronaut' })).toEqual({
      status: 'error',
      message: 'Error There was an issue submitting your request. Please try again.',
      reason: expect.stringMatching(
        /^Invalid arguments: "role" must be one of "Research", .*Nothing was stored\.$/,
      ),
    })
    expect(await tool?.execute({ email: 'ada@example.com', organisation: 'o'.repeat(101) })).toMatchObject({
      reason: 'Invalid arguments: "organisation" must be at most 100 characters. Nothing was stored.',
    })
    expect(submit).not.toHaveBeenCalled()
  })

  it('hands valid answers to submit as its sender, and keeps the plain submit for blank ones', async () => {
    const submit = vi.fn().mockResolvedValue({ status: 'submitted' })
    const tool = registeredWith(submit)
    expect(await tool?.execute({ email: 'ada@example.com', role: 'Research' })).toMatchObject({
      status: 'submitted',
    })
    expect(submit).toHaveBeenLastCalledWith('ada@example.com', { send: expect.any(Function) })
    await tool?.execute({ email: 'bo@example.com', role: ' ', use_case: '' })
    expect(submit).toHaveBeenLastCalledWith('bo@example.com', { byAgent: true })
  })

  it('are not offered by a build for a static host, which has no /mcp beside it', async () => {
    vi.stubEnv('VITE_SUPABASE_URL', 'https://abcdefgh.supabase.co')
    vi.resetModules()
    try {
      const { registerRequestAccessTool: staticRegister } = await import('./webmcp-register')
      let tool: WithInputSchema | undefined
      installContext('document', (registered) => {
        tool = registered as WithInputSchema
      })
      const submit = vi.fn().mockResolvedValue({ status: 'submitted' })
      staticRegister(submit)
      expect(Object.keys(tool?.inputSchema.properties ?? {})).toEqual(['email'])
      await tool?.execute({ email: 'ada@example.com', role: 'Research' })
      expect(submit).toHaveBeenLastCalledWith('ada@example.com', { byAgent: true })
    } finally {
      vi.unstubAllEnvs()
      vi.resetModules()
    }
  })
})

describe('toolResultOf', () => {
  it('maps each outcome, and an ignored empty submission, to a status and message', () => {
    expect(toolResultOf({ status: 'submitted' })).toEqual({
      status: 'submitted',
      message: "Request submitted! We'll be in touch soon about beta access.",
      next_step: 'wait_for_invitation',
    })
    // With confirmation on, the page's words: the person must confirm from their inbox.
    expect(toolResultOf({ status: 'submitted' }, true)).toEqual({
      status: 'submitted',
      message: 'Request submitted! Check your inbox to confirm your address.',
      next_step: 'confirm_email',
    })
    expect(toolResultOf({ status: 'already_registered' }, true)).toEqual({
      status: 'already_registered',
      message: 'Already on the waitlist! This email is already registered for beta access.',
    })
    expect(toolResultOf({ status: 'error', error: new Error('x') })).toEqual({
      status: 'error',
      message: 'Error There was an issue submitting your request. Please try again.',
    })
    expect(toolResultOf(undefined).status).toBe('error')
  })
})
