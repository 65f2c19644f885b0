// The one rule for every redirect target that comes from input (ARCHITECTURE.md, Redirects):
// the sign-in form's redirectTo, /jump?to=, the auth API's redirectTo of e-mail links, and the
// e-mail links' landing. Nothing else builds a Location from user input.
import { matchRoute } from './routes.ts';

const MAX_LENGTH = 2048;
// Browsers drop tabs and newlines inside URLs and treat a backslash as a slash: a target that
// holds one means something other than what it shows, so it is refused rather than cleaned.
const DECEPTIVE = /[\u0000-\u0020\u007f-\u009f\\\u2028\u2029\u00a0\ufeff]/;

export type SafeTarget = { /** Path, query and fragment, for a Location on our origin. */ path: string /** The same on PUBLIC_URL. */; href: string };

/**
 * The target resolved against PUBLIC_URL when it stays on that origin, names no user-info and
 * leads to a page of the route table; null for anything else.
 */
export function safeRedirect(target: string | null | undefined, publicUrl: string): SafeTarget | null {
  if (!target || target.length > MAX_LENGTH || DECEPTIVE.test(target)) return null;
  // A path from the root, or an absolute address: never one relative to wherever it lands.
  if (!target.startsWith('/') && !/^https?:\/\//i.test(target)) return null;
  let base: URL;
  let url: URL;
  try {
    base = new URL(publicUrl);
    url = new URL(target, base);
  } catch {
    return null;
  }
  if (url.origin !== base.origin || url.username || url.password) return null;
  // `/.//evil.example` normalises to `//evil.example`: a Location the browser reads as another host.
  if (url.pathname.startsWith('//') || !matchRoute(url.pathname)) return null;
  const path = url.pathname + url.search + url.hash;
  return { path, href: base.origin + path };
}
