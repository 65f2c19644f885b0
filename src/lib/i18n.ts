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

/** Messages without variables, translated once: i18next's lookup was 5 % of a page's CPU. */
const plain = new Map<MessageKey, string>();

export function t(key: MessageKey, vars?: Record<string, string | number>): string {
  if (vars) return i18n.t(key, vars) as string;
  let message = plain.get(key);
  if (message === undefined) plain.set(key, (message = i18n.t(key) as string));
  return message;
}
