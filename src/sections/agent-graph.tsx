/**
 * The hero's picture, for wide screens: an agent (the logo's tile) in the middle, the tools it can
 * call around it, and the one call it is making lit. Inline SVG drawn by hand, with no text in it,
 * so the headline stays the largest content on the first paint; colours come from classes (the
 * page's tokens, so both schemes follow) and motion only when the visitor has not asked for less.
 */
const CENTER = { x: 208, y: 220 }
const TILE = 88
const NODE = 60

// Each tool: where it sits, and its icon as 24×24 stroke paths.
const TOOLS = [
  { x: 208, y: 44, icon: 'M16.5 16.5 21 21M11 17a6 6 0 1 0 0-12 6 6 0 0 0 0 12Z' },
  {
    x: 360,
    y: 128,
    lit: true,
    icon: 'M4 5c0-1.7 3.6-3 8-3s8 1.3 8 3-3.6 3-8 3-8-1.3-8-3Zm0 0v14c0 1.7 3.6 3 8 3s8-1.3 8-3V5M4 12c0 1.7 3.6 3 8 3s8-1.3 8-3',
  },
  { x: 360, y: 312, icon: 'm5 7 5 5-5 5M12 18h7' },
  { x: 208, y: 396, icon: 'M6 3h8l4 4v14H6ZM14 3v4h4M9 12h6M9 16h6' },
  {
    x: 56,
    y: 312,
    icon: 'M6 5h12a2 2 0 0 1 2 2v11a2 2 0 0 1-2 2H6a2 2 0 0 1-2-2V7a2 2 0 0 1 2-2ZM4 10h16M9 3v4M15 3v4',
  },
  {
    x: 56,
    y: 128,
    icon: 'M9 4C7 4 6 5 6 7v3c0 1-1 2-2 2 1 0 2 1 2 2v3c0 2 1 3 3 3M15 4c2 0 3 1 3 3v3c0 1 1 2 2 2-1 0-2 1-2 2v3c0 2-1 3-3 3',
  },
] as const

type Tool = (typeof TOOLS)[number]

export function AgentGraph() {
  const lit = TOOLS.find((tool) => 'lit' in tool) ?? TOOLS[0]
  return (
    <svg
      viewBox="0 0 416 440"
      width="416"
      height="440"
      aria-hidden="true"
      focusable="false"
      className="hidden h-auto w-full max-w-[26rem] justify-self-end lg:block"
      fill="none"
      strokeLinecap="round"
      strokeLinejoin="round"
    >
      <Orbits />
      {TOOLS.map((tool) => (
        <line
          key={`edge-${tool.x}-${tool.y}`}
          x1={CENTER.x}
          y1={CENTER.y}
          x2={tool.x}
          y2={tool.y}
          className="stroke-line"
          strokeWidth="1.5"
          strokeDasharray="4 6"
        />
      ))}
      <LitCall to={lit} />
      {TOOLS.map((tool) => (
        <ToolNode key={`tool-${tool.x}-${tool.y}`} tool={tool} />
      ))}
      <Beacon on={lit} />
      <AgentTile />
    </svg>
  )
}

/** The context the agent keeps: two faint orbits. */
function Orbits() {
  return (
    <>
      <circle cx={CENTER.x} cy={CENTER.y} r="112" className="stroke-line" strokeWidth="1.5" />
      <circle
        cx={CENTER.x}
        cy={CENTER.y}
        r="176"
        className="stroke-line"
        strokeWidth="1.5"
        strokeDasharray="2 8"
      />
    </>
  )
}

/** The call under way: a lit path from the agent to one tool. */
function LitCall({ to }: { to: Tool }) {
  return (
    <>
      <line
        x1={CENTER.x}
        y1={CENTER.y}
        x2={to.x}
        y2={to.y}
        className="stroke-accent opacity-25"
        strokeWidth="6"
      />
      <line
        x1={CENTER.x}
        y1={CENTER.y}
        x2={to.x}
        y2={to.y}
        className="stroke-accent motion-safe:animate-flow"
        strokeWidth="2"
        strokeDasharray="8 4"
      />
    </>
  )
}

function ToolNode({ tool }: { tool: Tool }) {
  return (
    <g>
      <rect
        x={tool.x - NODE / 2}
        y={tool.y - NODE / 2}
        width={NODE}
        height={NODE}
        rx="14"
        className={'lit' in tool ? 'fill-panel stroke-accent' : 'fill-panel stroke-line'}
        strokeWidth={'lit' in tool ? 2 : 1.5}
      />
      <path
        d={tool.icon}
        transform={`translate(${tool.x - 12} ${tool.y - 12})`}
        className={'lit' in tool ? 'stroke-accent' : 'stroke-soft'}
        strokeWidth="1.75"
      />
    </g>
  )
}

/** The signal on the lit tool's corner. */
function Beacon({ on }: { on: Tool }) {
  return (
    <>
      <circle
        cx={on.x + NODE / 2 - 2}
        cy={on.y - NODE / 2 + 2}
        r="5"
        className="origin-center fill-signal [transform-box:fill-box] motion-safe:animate-beacon"
      />
      <circle cx={on.x + NODE / 2 - 2} cy={on.y - NODE / 2 + 2} r="5" className="fill-signal" />
    </>
  )
}

/** The agent: the logo's tile, drawn larger. */
function AgentTile() {
  return (
    <g transform={`translate(${CENTER.x - TILE / 2} ${CENTER.y - TILE / 2}) scale(${TILE / 32})`}>
      <rect width="32" height="32" rx="7" className="fill-ink" />
      <path d="M8 9h16v4h-6v10h-4V13H8z" className="fill-page" />
      <circle cx="24" cy="23" r="2.5" className="fill-signal" />
    </g>
  )
}
