/**
 * The home hero's illustration: the four service lines around one hub — a server rack
 * (IT Infrastructure), a roadmap chart (IT Consulting), a neural network (AI Consulting) and a code
 * window (AI Development). Inline SVG in the style of the blog artwork: no request, no layout
 * shift (fixed size), never the LCP element (an inline <svg> is not an LCP candidate), and drawn
 * with theme classes so it is right in dark mode. Decorative: the text beside it says it all.
 */

const tile = "fill-white stroke-blue-200 dark:fill-slate-900 dark:stroke-slate-700";
const ink = "fill-blue-700 dark:fill-blue-400";
const soft = "fill-blue-100 dark:fill-slate-800";
const line = "stroke-blue-300 dark:stroke-slate-600";
const accent = "fill-emerald-500 dark:fill-emerald-400";

export function HeroIllustration({ className = "" }: { className?: string }) {
  return (
    <svg
      aria-hidden="true"
      focusable="false"
      viewBox="0 0 440 400"
      width="440"
      height="400"
      className={className}
      strokeWidth="2"
      strokeLinecap="round"
    >
      {/* Links from the hub to each service line */}
      <g className={line} fill="none" strokeDasharray="6 6">
        <path d="M220 200 110 100M220 200l110-100M220 200 110 300M220 200l110 100" />
      </g>

      {/* IT Infrastructure: a server rack */}
      <rect x="30" y="30" width="160" height="140" rx="18" className={tile} />
      <rect x="70" y="52" width="80" height="96" rx="8" className={soft} />
      {[62, 90, 118].map((y) => (
        <g key={y}>
          <rect x="78" y={y} width="64" height="20" rx="4" className={ink} />
          <circle cx="88" cy={y + 10} r="3" className={accent} />
          <rect
            x="98"
            y={y + 8}
            width="36"
            height="4"
            rx="2"
            className="fill-blue-300 dark:fill-blue-200"
          />
        </g>
      ))}

      {/* IT Consulting: a roadmap chart rising to a goal */}
      <rect x="250" y="30" width="160" height="140" rx="18" className={tile} />
      <rect x="272" y="112" width="18" height="36" rx="3" className={soft} />
      <rect x="300" y="96" width="18" height="52" rx="3" className={soft} />
      <rect x="328" y="78" width="18" height="70" rx="3" className={soft} />
      <rect x="356" y="58" width="18" height="90" rx="3" className={soft} />
      <path
        d="M278 104 306 86l28-10 30-24"
        fill="none"
        className="stroke-blue-700 dark:stroke-blue-400"
        strokeWidth="4"
      />
      <circle cx="364" cy="52" r="8" className={accent} />

      {/* AI Consulting: a small neural network */}
      <rect x="30" y="230" width="160" height="140" rx="18" className={tile} />
      <g className={line} fill="none">
        <path d="M70 265l40 35-40 35M70 265l40-0 40 35M70 335l40 0 40-35M110 265v70M110 300h40" />
      </g>
      {[
        [70, 265],
        [70, 335],
        [110, 265],
        [110, 300],
        [110, 335],
      ].map(([cx, cy]) => (
        <circle key={`${cx}-${cy}`} cx={cx} cy={cy} r="9" className={ink} />
      ))}
      <circle cx="150" cy="300" r="12" className={accent} />

      {/* AI Development: a code window */}
      <rect x="250" y="230" width="160" height="140" rx="18" className={tile} />
      <rect x="266" y="248" width="128" height="104" rx="8" className={soft} />
      <circle cx="280" cy="260" r="4" className="fill-rose-400" />
      <circle cx="293" cy="260" r="4" className="fill-amber-400" />
      <circle cx="306" cy="260" r="4" className={accent} />
      <path
        d="M300 290l-16 16 16 16M360 290l16 16-16 16"
        fill="none"
        className="stroke-blue-700 dark:stroke-blue-400"
        strokeWidth="5"
      />
      <path
        d="M338 284l-16 44"
        className="stroke-emerald-500 dark:stroke-emerald-400"
        strokeWidth="5"
      />

      {/* The hub: one accountable team */}
      <circle cx="220" cy="200" r="34" className="fill-blue-700 dark:fill-blue-500" />
      <path d="M204 214l12-22 7 10 5-7 12 19z" className="fill-white" />
    </svg>
  );
}
