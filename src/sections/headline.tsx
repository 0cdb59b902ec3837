/**
 * The tagline with each hyphenated word kept whole ('agent-centric' does not break after its
 * hyphen on wide screens; a phone may need the break). The words and spaces are exactly the config's.
 */
export function Headline({ text }: { text: string }) {
  return text.split(/(\S+-\S+)/).map((part, index) =>
    index % 2 === 1 ? (
      // biome-ignore lint/suspicious/noArrayIndexKey: the parts of a fixed string never reorder
      <span key={index} className="sm:whitespace-nowrap">
        {part}
      </span>
    ) : (
      part
    ),
  )
}
