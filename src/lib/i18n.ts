// One i18next instance with the French catalogue (French is also the fallback), ready at import.
import i18next from 'i18next';
import { fr } from '#lib/i18n/fr.ts';

const i18n = i18next.createInstance();
void i18n.init({
  lng: 'fr',
  fallbackLng: 'fr',
  resources: { fr: { translation: fr } },
  initAsync: false,
  interpolation: { escapeValue: false },
  showSupportNotice: false,
} as never);

/** Dotted paths of the catalogue, checked at compile time. */
type Paths<T, P extends string = ''> = {
  [K in keyof T & string]: T[K] extends string ? `${P}${K}` : Paths<T[K], `${P}${K}.`>;
}[keyof T & string];
export type MessageKey = Paths<typeof fr>;

/**
 * Messages translated once: i18next's lookup was 5 % of a page's CPU. With the one language and
 * its catalogue fixed at start, a message depends on its key and variables only; a page asks the
 * same ones on every request (a column's sort label, a tab's count). Kept up to a bound, then
 * forgotten together.
 */
const plain = new Map<MessageKey, string>();
const filled = new Map<string, string>();
const FILLED_MAX = 5000;

export function t(key: MessageKey, vars?: Record<string, string | number>): string {
  if (vars) {
    const id = `${key}\u0000${JSON.stringify(vars)}`;
    let message = filled.get(id);
    if (message === undefined) {
      if (filled.size >= FILLED_MAX) filled.clear();
      filled.set(id, (message = i18n.t(key, vars) as string));
    }
    return message;
  }
  let message = plain.get(key);
  if (message === undefined) plain.set(key, (message = i18n.t(key) as string));
  return message;
}
