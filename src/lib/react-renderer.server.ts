// How Astro renders this app's React components on the server (decision 083): @astrojs/react's
// renderer, with two costs taken out. Its check() renders every component once more to learn
// whether it is React's, and it renders each one through a web stream; a page of forms renders
// dozens (every TextInput, every Icon), and the two were about a third of a page's server CPU.
// Here every component that is not Astro's is React's (the only renderer), and a component
// renders with renderToString, which suspends nothing (no island waits on data: pages load it
// first). Each render keeps its own useId prefix, as hydration reads it from the island's
// `prefix` attribute.
import { createElement, memo, type ReactNode } from 'react';
import { renderToString } from 'react-dom/server';

type Metadata = { hydrate?: string; astroStaticSlot?: boolean };
type Context = { result?: object } | undefined;

/** One counter per page render: r0, r1… as @astrojs/react numbers its islands. */
const counters = new WeakMap<object, number>();
function nextPrefix(result: object) {
  const index = counters.get(result) ?? 0;
  counters.set(result, index + 1);
  return `r${index}`;
}

/** HTML Astro rendered for a slot, kept as it is (and not hydrated) inside the React tree. */
const StaticHtml = memo(
  ({ value, name, hydrate = true }: { value: string; name?: string; hydrate?: boolean }) =>
    value.trim() === ''
      ? null
      : createElement(hydrate ? 'astro-slot' : 'astro-static-slot', { name, suppressHydrationWarning: true, dangerouslySetInnerHTML: { __html: value } }),
  () => true,
);

const slotName = (name: string) => name.trim().replace(/[-_]([a-z])/g, (_, letter: string) => letter.toUpperCase());
const reactObject = (component: object) => String((component as { $$typeof?: symbol }).$$typeof ?? '').startsWith('Symbol(react');

function check(component: unknown) {
  return typeof component === 'function' || (typeof component === 'object' && component !== null && reactObject(component));
}

function renderToStaticMarkup(
  this: Context,
  component: Parameters<typeof createElement>[0],
  props: Record<string, unknown>,
  { default: children, ...slotted }: Record<string, string | undefined>,
  metadata?: Metadata,
) {
  const prefix = this?.result ? nextPrefix(this.result) : undefined;
  const hydrate = metadata?.astroStaticSlot ? Boolean(metadata.hydrate) : true;
  const { class: _class, ...rest } = props;
  const given: Record<string, unknown> = { ...rest };
  for (const [key, value] of Object.entries(slotted)) if (value != null) given[slotName(key)] = createElement(StaticHtml, { hydrate, value, name: key });
  const inner = children ?? (rest.children as string | undefined);
  if (inner != null) given.children = createElement(StaticHtml, { hydrate, value: String(inner) });
  const html = renderToString(createElement(component, given) as ReactNode, { identifierPrefix: prefix })
    // React hoists resource hints into a render's HTML; in a fragment they belong to no <head>.
    .replace(/<link\s[^>]*rel="(?:preload|modulepreload|stylesheet|preconnect|dns-prefetch)"[^>]*>/g, '');
  return Promise.resolve({ html, attrs: { prefix } });
}

export default { name: '@astrojs/react', check, renderToStaticMarkup, supportsAstroStaticSlot: true };
