// Material Design Icons as inline SVG (ARCHITECTURE.md: never an icon font).
export function Icon(props: { path: string; size?: number; className?: string; title?: string }) {
  const { path, size = 20, className, title } = props;
  return (
    <svg viewBox="0 0 24 24" width={size} height={size} className={className} aria-hidden={title ? undefined : true} role={title ? 'img' : undefined} fill="currentColor">
      {title ? <title>{title}</title> : null}
      <path d={path} />
    </svg>
  );
}
