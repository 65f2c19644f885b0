// Dates DD/MM/YYYY, HH:mm, DD/MM/YYYY HH:mm and fr-FR numbers (SPEC §1).
import dayjs from 'dayjs';
import 'dayjs/locale/fr.js';

dayjs.locale('fr');

type DateInput = Date | string | number | null | undefined;

const fmt = (value: DateInput, pattern: string) => {
  if (value === null || value === undefined || value === '') return '';
  const d = dayjs(value);
  return d.isValid() ? d.format(pattern) : '';
};

export const formatDate = (value: DateInput) => fmt(value, 'DD/MM/YYYY');
export const formatTime = (value: DateInput) => fmt(value, 'HH:mm');
export const formatDateTime = (value: DateInput) => fmt(value, 'DD/MM/YYYY HH:mm');

const numberFormats = new Map<string, Intl.NumberFormat>();
export function formatNumber(value: number | null | undefined, options: Intl.NumberFormatOptions = {}): string {
  if (value === null || value === undefined || Number.isNaN(value)) return '';
  const key = JSON.stringify(options);
  let f = numberFormats.get(key);
  if (!f) numberFormats.set(key, (f = new Intl.NumberFormat('fr-FR', options)));
  return f.format(value);
}

/** The French label of a value the API gives as text (energy, engine size…); the value itself when the catalogue has none. */
export function labelOf<K extends string>(labels: Record<K, string>, value: string): string {
  return Object.hasOwn(labels, value) ? labels[value as K] : value;
}

/** A number as a form field shows it: "3,5"; empty when there is none. */
export const numberField = (n: number | null | undefined) => (n === null || n === undefined ? '' : String(n).replace('.', ','));
