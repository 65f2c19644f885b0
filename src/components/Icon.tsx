// Material Design Icons as inline SVG (ARCHITECTURE.md: never an icon font).
export function Icon(props: { path: string; size?: number; className?: string; title?: string }) {
  const { path, size = 20, className, title } = props;
  return (
    // biome-ignore lint/a11y/noSvgWithoutTitle: decorative unless titled: hidden from assistive technology, or role img with its <title>
    <svg
      viewBox="0 0 24 24"
      width={size}
      height={size}
      className={className}
      aria-hidden={title ? undefined : true}
      role={title ? 'img' : undefined}
      fill="currentColor"
    >
      {title ? <title>{title}</title> : null}
      <path d={path} />
    </svg>
  );
}
