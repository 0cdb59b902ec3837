/** The whole page's fallback when rendering fails: the same look as the 404 page, and a way back. */
export function AppErrorPage() {
  return (
    <main className="flex min-h-screen items-center justify-center bg-slate-50 px-6">
      <div className="text-center">
        <h1 className="text-4xl font-bold text-slate-900">Unexpected Application Error!</h1>
        <p className="mt-4 text-xl text-slate-600">Something went wrong on our side. Please try again.</p>
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
