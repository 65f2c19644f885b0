// Dates DD/MM/YYYY, HH:mm, DD/MM/YYYY HH:mm and fr-FR numbers (SPEC §1), always on the
// workshop's clock (WORKSHOP_TIME_ZONE, decision 038): never the server's TZ, never the browser's.
// Every date the application shows, prints, exports or mails goes through this module.

// `t` names a parsed time below: the catalogue's function goes by another name here.
import { t as translate } from '#lib/i18n.ts';
import { singular } from '#lib/plural.ts';

/** The zone when none is configured. */
export const DEFAULT_TIME_ZONE = 'Europe/Paris';

// The server's bundle of this module and Node's own copy (server/) are two module instances in one
// process: the zone lives on globalThis so that one call at start-up sets it for both.
const ZONE_KEY = Symbol.for('atelier.workshopTimeZone');
type ZoneHolder = { [ZONE_KEY]?: string };

/** Whether the runtime knows this IANA zone name ("Europe/Paris", "UTC"…). */
export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-GB', { timeZone: zone });
    return zone.trim() !== '';
  } catch {
    return false;
  }
}

/** Sets the workshop's zone for this process (server start-up, from the config). */
export function setWorkshopTimeZone(zone: string): void {
  if (!isTimeZone(zone)) throw new RangeError(`Unknown time zone: ${zone}`);
  (globalThis as ZoneHolder)[ZONE_KEY] = zone;
}

/**
 * The workshop's zone. In the browser, the one the server wrote on <html data-time-zone> (Base.astro),
 * so that an island hydrates with the very text the server rendered.
 */
export function workshopTimeZone(): string {
  if (typeof document !== 'undefined') {
    const zone = document.documentElement?.dataset.timeZone;
    if (zone) return zone;
  }
  return (globalThis as ZoneHolder)[ZONE_KEY] ?? DEFAULT_TIME_ZONE;
}

type DateInput = Date | string | number | null | undefined;
type Parts = { year: string; month: string; day: string; hour: string; minute: string; second: string };

const formats = new Map<string, Intl.DateTimeFormat>();
function formatIn(zone: string): Intl.DateTimeFormat {
  let f = formats.get(zone);
  if (!f) {
    // Numeric parts only, to read the zone's offset; the text itself is assembled below, so Node
    // and every browser write the same whatever their ICU puts between date and time ("," or " à ").
    f = new Intl.DateTimeFormat('en-GB', {
      timeZone: zone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
    });
    formats.set(zone, f);
  }
  return f;
}

/** The zone's offset at an instant (its wall clock minus UTC, in ms), asked of Intl. */
function intlOffset(ms: number, zone: string): number {
  const p: Record<string, string> = {};
  for (const part of formatIn(zone).formatToParts(new Date(ms))) p[part.type] = part.value;
  return Date.UTC(+p.year!, +p.month! - 1, +p.day!, +p.hour!, +p.minute!, +p.second!) - Math.floor(ms / 1000) * 1000;
}

// formatToParts costs ~20 µs; a 10,000-row export would spend 0.2 s in it. Offsets change at most
// once an hour (summer time), so one is kept per zone and UTC hour when the hour has no change.
const offsets = new Map<string, number>();
const HOUR = 3_600_000;
function offsetOf(ms: number, zone: string): number {
  const hour = Math.floor(ms / HOUR);
  const key = `${zone} ${hour}`;
  const known = offsets.get(key);
  if (known !== undefined) return known;
  const start = intlOffset(hour * HOUR, zone);
  if (start !== intlOffset(hour * HOUR + HOUR - 1, zone)) return intlOffset(ms, zone);
  if (offsets.size >= 5_000) offsets.clear();
  offsets.set(key, start);
  return start;
}

const two = (n: number) => String(n).padStart(2, '0');
/** Wall-clock parts of an instant in a zone. */
function partsOf(instant: Date, zone: string): Parts {
  const wall = new Date(instant.getTime() + offsetOf(instant.getTime(), zone));
  return {
    year: String(wall.getUTCFullYear()).padStart(4, '0'),
    month: two(wall.getUTCMonth() + 1),
    day: two(wall.getUTCDate()),
    hour: two(wall.getUTCHours()),
    minute: two(wall.getUTCMinutes()),
    second: two(wall.getUTCSeconds()),
  };
}

const DAY_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;

/**
 * The wall-clock parts of a value: a day ("2026-11-26", a `date` column) is a day of the calendar
 * and stays that day (no zone shifts it); an instant (Date, ISO timestamp, epoch ms) is read in the zone.
 */
function wallClock(value: DateInput, zone: string): Parts | null {
  if (value === null || value === undefined || value === '') return null;
  if (typeof value === 'string') {
    const day = DAY_ONLY.exec(value);
    if (day) return { year: day[1]!, month: day[2]!, day: day[3]!, hour: '00', minute: '00', second: '00' };
  }
  const instant = value instanceof Date ? value : new Date(value);
  if (Number.isNaN(instant.getTime())) return null;
  return partsOf(instant, zone);
}

const fmt = (value: DateInput, render: (p: Parts) => string, zone = workshopTimeZone()) => {
  const p = wallClock(value, zone);
  return p ? render(p) : '';
};

/** 26/11/2026 */
export const formatDate = (value: DateInput, zone?: string) => fmt(value, (p) => `${p.day}/${p.month}/${p.year}`, zone);
/** 14:50 */
export const formatTime = (value: DateInput, zone?: string) => fmt(value, (p) => `${p.hour}:${p.minute}`, zone);
/** 26/11/2026 14:50 */
export const formatDateTime = (value: DateInput, zone?: string) => fmt(value, (p) => `${p.day}/${p.month}/${p.year} ${p.hour}:${p.minute}`, zone);
/** 26/11/2026 14:50:07: the audit trail, where seconds order events. */
export const formatDateTimeSeconds = (value: DateInput, zone?: string) =>
  fmt(value, (p) => `${p.day}/${p.month}/${p.year} ${p.hour}:${p.minute}:${p.second}`, zone);
/** 26/11: a day of the current year, beside a time. */
export const formatDayMonth = (value: DateInput, zone?: string) => fmt(value, (p) => `${p.day}/${p.month}`, zone);

/** The workshop's day of an instant, as YYYY-MM-DD (a `date` column, a file name); now by default. */
export const dayOf = (value: DateInput = new Date(), zone?: string) => fmt(value, (p) => `${p.year}-${p.month}-${p.day}`, zone);

/** Today in the workshop, as YYYY-MM-DD: what a date field proposes, what a closing records. */
export const workshopToday = (zone?: string) => dayOf(new Date(), zone);

/** `iso` moved by `days` days of the calendar (no zone: a date is a day). */
export function addDays(iso: string, days: number): string {
  const d = new Date(`${iso}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

/** Whether two instants fall on the same day of the workshop. */
export const isSameDay = (a: DateInput, b: DateInput, zone?: string) => {
  const day = dayOf(a, zone);
  return day !== '' && day === dayOf(b, zone);
};

/**
 * The instant a wall-clock time of the workshop names: "2026-11-26" (00:00 by default) in the zone.
 * A time skipped by a spring-forward (02:30 on the last Sunday of March in Paris) reads as the
 * instant after the gap; one met twice in autumn, as its first occurrence. Null for a day that does not exist.
 */
export function zonedInstant(day: string, time = '00:00', zone = workshopTimeZone()): Date | null {
  const d = DAY_ONLY.exec(day);
  const t = /^(\d{2}):(\d{2})(?::(\d{2}))?$/.exec(time);
  if (!d || !t) return null;
  const [y, mo, da, h, mi, s] = [d[1], d[2], d[3], t[1], t[2], t[3] ?? '0'].map(Number) as [number, number, number, number, number, number];
  const wall = Date.UTC(y, mo - 1, da, h, mi, s);
  const check = new Date(wall);
  if (check.getUTCFullYear() !== y || check.getUTCMonth() !== mo - 1 || check.getUTCDate() !== da || h > 23 || mi > 59 || s > 59) return null;
  const offsetAt = (ms: number) => offsetOf(ms, zone);
  // Offsets on both sides of the wall time (no zone moves twice within a day): the earlier reading
  // that lands on the asked time wins; in a gap, none does and the later offset carries it past.
  const before = offsetAt(wall - 86_400_000);
  const after = offsetAt(wall + 86_400_000);
  for (const offset of before >= after ? [before, after] : [after, before]) {
    const candidate = wall - offset;
    if (offsetAt(candidate) === offset) return new Date(candidate);
  }
  return new Date(wall - before);
}

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

/**
 * A text whose numbers stay on one line with their groups of digits and their unit, printed
 * («150 000 km» never breaks as «150 / 000», walk15 F9, nor «200 000 / km», walk16 F4): a no-break
 * space between groups, and before a word of three letters or less that follows a number.
 */
export const wholeNumbers = (text: string) => text.replace(/(\d) (?=\d{3}(?!\d)|[\p{L}°%]{1,3}(?![\p{L}\d]))/gu, '$1\u00a0');

/** A number as a form field shows it: "3,5"; empty when there is none. */
export const numberField = (n: number | null | undefined) => (n === null || n === undefined ? '' : String(n).replace('.', ','));

/**
 * A wait before trying again. `rounded` (a refusal's wait, read by a person who comes back):
 * seconds under a minute («12 secondes»), whole minutes above, rounded up («2 minutes» for 61 s).
 * `exact` (a countdown: the page loads again by itself after that long): minutes and seconds as
 * they are («1 min 20 s» for 80 s). Every wait shown goes through it.
 */
export function formatWait(seconds: number, mode: 'rounded' | 'exact' = 'rounded'): string {
  const s = Math.max(1, Math.ceil(seconds));
  if (s < 60) return singular(s) ? translate('errors.waitSecondsOne', { count: s }) : translate('errors.waitSeconds', { count: s });
  const rest = s % 60;
  if (mode === 'exact' && rest) return translate('errors.waitMinutesSeconds', { minutes: Math.floor(s / 60), seconds: rest });
  const minutes = Math.ceil(s / 60);
  return singular(minutes) ? translate('errors.waitMinutesOne', { count: minutes }) : translate('errors.waitMinutes', { count: minutes });
}
