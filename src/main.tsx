import './styles.css'

// The prerendered HTML paints on its own. React and the app are fetched and hydrate right after
// that first paint, so no script stands between the HTML and its first (and largest) paint.
// Until then the form is a plain POST form the server answers, so an early submit still works.
let started = false
function hydrate() {
  if (started) return
  started = true
  void import('./hydrate')
}
requestAnimationFrame(() => setTimeout(hydrate, 0))
// A tab opened in the background gets no animation frame until it is shown; do not wait for one.
setTimeout(hydrate, 250)
