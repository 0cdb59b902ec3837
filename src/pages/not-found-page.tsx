import { useEffect } from 'react'

export function NotFoundPage({ path }: { path: string }) {
  useEffect(() => {
    // Required by the specification (section 2): the missing path is logged.
    console.error('404 Error: User attempted to access non-existent route:', path)
  }, [path])

  return (
    <main className="flex min-h-screen items-center justify-center bg-slate-50 px-6">
      <div className="text-center">
        <h1 className="text-4xl font-bold text-slate-900">404</h1>
        <p className="mt-4 text-xl text-slate-600">Oops! Page not found</p>
        <a
          href="/"
          className="mt-6 inline-block text-blue-700 underline underline-offset-4 hover:text-blue-900"
        >
          Return to Home
        </a>
      </div>
    </main>
  )
}
