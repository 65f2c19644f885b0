// The workshop's clock (decision 038): one formatter reads every instant in WORKSHOP_TIME_ZONE,
// whatever the process's own TZ (vitest runs with TZ=UTC), and reads typed days in that zone too.
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  dayOf,
  DEFAULT_TIME_ZONE,
  formatDate,
  formatDateTime,
  formatDateTimeSeconds,
  formatDayMonth,
  formatTime,
  formatWait,
  isSameDay,
  isTimeZone,
  setWorkshopTimeZone,
  workshopTimeZone,
  workshopToday,
  zonedInstant,
} from '#lib/format.ts';
import { isoDay } from '#lib/page-query.ts';
import { isoDate, pastDate } from '#lib/validation.ts';
import { loadConfig } from '#server/config.ts';

afterEach(() => setWorkshopTimeZone(DEFAULT_TIME_ZONE));

describe('the formatter', () => {
  it("runs in a process whose own zone is UTC, so that the tests below prove the zone is not the server's", () => {
    expect(process.env.TZ).toBe('UTC');
    expect(new Date('2026-01-15T13:50:00Z').getHours()).toBe(13);
  });

  it('writes winter instants at UTC+1 and summer instants at UTC+2 in Paris', () => {
    expect(workshopTimeZone()).toBe('Europe/Paris');
    expect(formatDateTime('2026-01-15T13:50:00Z')).toBe('15/01/2026 14:50');
    expect(formatDateTime(new Date('2026-07-15T12:50:00Z'))).toBe('15/07/2026 14:50');
    expect(formatTime(Date.parse('2026-07-15T12:50:00Z'))).toBe('14:50');
    expect(formatDateTimeSeconds('2026-11-26T13:50:07.900Z')).toBe('26/11/2026 14:50:07');
    expect(formatDayMonth('2026-11-26T13:50:00Z')).toBe('26/11');
  });

  it('follows the changes of hour: the last Sunday of March and of October', () => {
    // 29 March 2026: 02:00 becomes 03:00 at 01:00 UTC.
    expect(formatTime('2026-03-29T00:59:00Z')).toBe('01:59');
    expect(formatTime('2026-03-29T01:00:00Z')).toBe('03:00');
    // 25 October 2026: 03:00 becomes 02:00 at 01:00 UTC; 02:30 happens twice.
    expect(formatTime('2026-10-25T00:30:00Z')).toBe('02:30');
    expect(formatTime('2026-10-25T01:30:00Z')).toBe('02:30');
  });

  it('agrees with Intl minute for minute through a year in zones with odd offsets and half-hour summer times', () => {
    for (const zone of ['Europe/Paris', 'Pacific/Auckland', 'America/St_Johns', 'Asia/Kathmandu', 'Australia/Lord_Howe']) {
      const intl = new Intl.DateTimeFormat('en-GB', {
        timeZone: zone,
        year: 'numeric',
        month: '2-digit',
        day: '2-digit',
        hour: '2-digit',
        minute: '2-digit',
        hourCycle: 'h23',
      });
      const wrong: string[] = [];
      // Every 179 minutes (prime to 60): every minute of the hour is met, and both sides of each change.
      for (let ms = Date.UTC(2026, 0, 1); ms < Date.UTC(2027, 0, 1); ms += 179 * 60_000) {
        const p = Object.fromEntries(intl.formatToParts(ms).map((part) => [part.type, part.value]));
        const expected = `${p.day}/${p.month}/${p.year} ${p.hour}:${p.minute}`;
        if (formatDateTime(ms, zone) !== expected) wrong.push(`${new Date(ms).toISOString()}: ${formatDateTime(ms, zone)} ≠ ${expected}`);
      }
      expect(wrong, zone).toEqual([]);
    }
  });

  it("puts an instant near midnight on the workshop's day, not UTC's", () => {
    // 23:30 UTC on 31 December is already New Year's Day in Paris.
    expect(formatDate('2026-12-31T23:30:00Z')).toBe('01/01/2027');
    expect(formatDateTime('2026-12-31T23:30:00Z')).toBe('01/01/2027 00:30');
    expect(dayOf('2026-12-31T23:30:00Z')).toBe('2027-01-01');
    // 22:30 UTC in summer is 00:30 the next day.
    expect(dayOf('2026-06-30T22:30:00Z')).toBe('2026-07-01');
    expect(dayOf('2026-06-30T21:59:59Z')).toBe('2026-06-30');
    expect(formatTime('2026-06-30T22:00:00Z')).toBe('00:00');
    expect(isSameDay('2026-06-30T21:00:00Z', '2026-06-30T22:30:00Z')).toBe(false);
    expect(isSameDay('2026-06-30T22:00:00Z', '2026-07-01T21:59:00Z')).toBe(true);
  });

  it('keeps a day of the calendar (a date column) that day in every zone', () => {
    for (const zone of ['Europe/Paris', 'Pacific/Auckland', 'America/Los_Angeles', 'UTC']) {
      setWorkshopTimeZone(zone);
      expect(formatDate('2026-11-26')).toBe('26/11/2026');
      expect(dayOf('2026-11-26')).toBe('2026-11-26');
    }
  });

  it('says which day it is in the workshop, not in UTC: a closing at 00:30 in Paris is dated that day', () => {
    vi.useFakeTimers({ toFake: ['Date'], now: new Date('2026-06-30T22:30:00Z') });
    try {
      expect(workshopToday()).toBe('2026-07-01');
      expect(workshopToday('UTC')).toBe('2026-06-30');
      expect(isoDate().parse(new Date())).toBe('2026-07-01');
      // A day that has come is the workshop's: 01/07 is today in Paris, 02/07 is still to come (walk31 F1).
      expect(pastDate().safeParse('01/07/2026').data).toBe('2026-07-01');
      expect(
        pastDate()
          .safeParse('02/07/2026')
          .error?.issues.map((i) => i.message),
      ).toEqual(["Date postérieure à aujourd'hui"]);
      expect(
        pastDate()
          .safeParse('32/07/2026')
          .error?.issues.map((i) => i.message),
      ).toEqual(['Date invalide']);
    } finally {
      vi.useRealTimers();
    }
  });

  it('writes nothing for nothing, and nothing for a value that is no date', () => {
    expect(formatDate(null)).toBe('');
    expect(formatDateTime(undefined)).toBe('');
    expect(formatTime('')).toBe('');
    expect(formatDate('pas une date')).toBe('');
  });

  it('uses another zone when the workshop is elsewhere', () => {
    setWorkshopTimeZone('Pacific/Auckland');
    // NZ summer (+13) in January, NZ winter (+12) in July.
    expect(formatDateTime('2026-01-15T13:50:00Z')).toBe('16/01/2026 02:50');
    expect(formatDateTime('2026-07-15T12:50:00Z')).toBe('16/07/2026 00:50');
    setWorkshopTimeZone('America/Montreal');
    expect(formatDateTime('2026-01-15T13:50:00Z')).toBe('15/01/2026 08:50');
    expect(formatDateTime('2026-01-15T13:50:00Z', 'Europe/Paris')).toBe('15/01/2026 14:50');
  });
});

describe('days typed by a person', () => {
  it('start at 00:00 in the workshop: "du 26/11/2026" begins at 23:00 UTC the day before', () => {
    expect(zonedInstant('2026-11-26')?.toISOString()).toBe('2026-11-25T23:00:00.000Z');
    expect(zonedInstant('2026-07-01')?.toISOString()).toBe('2026-06-30T22:00:00.000Z');
    expect(zonedInstant('2026-07-01', '14:50')?.toISOString()).toBe('2026-07-01T12:50:00.000Z');
    expect(zonedInstant('2026-01-01', '00:00', 'Pacific/Auckland')?.toISOString()).toBe('2025-12-31T11:00:00.000Z');
    expect(zonedInstant('2026-01-01', '00:00', 'UTC')?.toISOString()).toBe('2026-01-01T00:00:00.000Z');
  });

  it('read the hours around a change of hour as a person means them', () => {
    // The day of the spring change still starts at 00:00 (+1); 02:30 does not exist: 03:30.
    expect(zonedInstant('2026-03-29')?.toISOString()).toBe('2026-03-28T23:00:00.000Z');
    expect(zonedInstant('2026-03-29', '02:30')?.toISOString()).toBe('2026-03-29T01:30:00.000Z');
    expect(zonedInstant('2026-03-29', '03:00')?.toISOString()).toBe('2026-03-29T01:00:00.000Z');
    // 02:30 happens twice on 25 October: the first one (+2).
    expect(zonedInstant('2026-10-25', '02:30')?.toISOString()).toBe('2026-10-25T00:30:00.000Z');
    expect(zonedInstant('2026-10-25', '12:00')?.toISOString()).toBe('2026-10-25T11:00:00.000Z');
    // Every day round-trips through the formatter.
    for (const day of ['2026-03-29', '2026-10-25', '2026-12-31', '2027-01-01']) expect(dayOf(zonedInstant(day))).toBe(day);
  });

  it('refuse a day that does not exist', () => {
    expect(zonedInstant('2026-02-31')).toBeNull();
    expect(zonedInstant('2026-13-01')).toBeNull();
    expect(zonedInstant('2026-11-26', '24:00')).toBeNull();
    expect(zonedInstant('26/11/2026')).toBeNull();
  });

  it('read what a number pad can type, day first: no «/» needed', () => {
    const today = '2026-11-26';
    for (const typed of ['26/11/2026', '26.11.2026', '26-11-2026', '26 11 2026', '26112026', '26/11/26', '26.11.26', '261126', ' 26/11/2026 ', '2026-11-26'])
      expect(isoDay(typed, today), typed).toBe('2026-11-26');
    expect(isoDay('5.3.2026', today)).toBe('2026-03-05');
    // Seven digits: only the reading that is a real day (51/1 is none).
    expect(isoDay('5112026', today)).toBe('2026-11-05');
    // A 2-digit year in the window from 80 years back to 19 ahead of the workshop's year.
    expect(isoDay('01/01/45', today)).toBe('2045-01-01');
    expect(isoDay('01/01/46', today)).toBe('1946-01-01');
    expect(isoDay('311299', today)).toBe('1999-12-31');
    // The year turns in the workshop's zone: at 23:30 UTC on 31 December 2025 Paris is in 2026.
    vi.useFakeTimers({ now: new Date('2025-12-31T23:30:00Z') });
    try {
      expect(isoDay('010145')).toBe('2045-01-01');
      setWorkshopTimeZone('UTC');
      expect(isoDay('010145')).toBe('1945-01-01');
    } finally {
      vi.useRealTimers();
    }
  });

  it('leave as typed what reads as no day, or as two', () => {
    const today = '2026-11-26';
    // 1/11 or 11/1: the field says the date is invalid rather than guess.
    expect(isoDay('1112026', today)).toBe('1112026');
    for (const typed of ['31/02/2026', '26/11', '2611', '31129', '26/11-2026', '26/11/202', '261120266', 'demain', '2026-13-01'])
      expect(isoDay(typed, today), typed).toBe(typed);
    expect(isoDate().safeParse('26112026').data).toBe('2026-11-26');
    expect(isoDate().safeParse('31022026').error?.issues[0]?.message).toBe('Date invalide');
  });

  it("turn a Date handed to a date field into the workshop's day, not UTC's", () => {
    // 00:30 on 1 July in Paris is still 30 June in UTC.
    expect(isoDate().parse(new Date('2026-06-30T22:30:00Z'))).toBe('2026-07-01');
    expect(isoDate().parse('01/07/2026')).toBe('2026-07-01');
  });
});

describe('WORKSHOP_TIME_ZONE', () => {
  it('is Europe/Paris by default, and any IANA zone when set', () => {
    const dataDir = '/tmp/atelier-config-tz';
    expect(loadConfig({ DATA_DIR: dataDir }).workshopTimeZone).toBe('Europe/Paris');
    expect(loadConfig({ DATA_DIR: dataDir, WORKSHOP_TIME_ZONE: 'America/Montreal' }).workshopTimeZone).toBe('America/Montreal');
  });

  it('stops the start with one clear line for a zone that does not exist', () => {
    expect(isTimeZone('Europe/Pariss')).toBe(false);
    expect(isTimeZone('Europe/Paris')).toBe(true);
    expect(() => loadConfig({ DATA_DIR: '/tmp/atelier-config-tz', WORKSHOP_TIME_ZONE: 'Europe/Pariss' })).toThrow(
      'Invalid WORKSHOP_TIME_ZONE: must be an IANA time zone name, such as Europe/Paris or America/Montreal',
    );
    expect(() => setWorkshopTimeZone('Mars/Olympus')).toThrow(RangeError);
  });
});

describe('a retry wait', () => {
  it('is said in seconds under a minute, in whole minutes (rounded up) above', () => {
    expect(formatWait(1)).toBe('1 seconde');
    expect(formatWait(12)).toBe('12 secondes');
    expect(formatWait(59.2)).toBe('1 minute');
    expect(formatWait(60)).toBe('1 minute');
    expect(formatWait(61)).toBe('2 minutes');
    expect(formatWait(900)).toBe('15 minutes');
    expect(formatWait(0)).toBe('1 seconde');
  });

  // A page that loads again by itself after N seconds says N exactly (80 s is not «2 minutes»).
  it('is said exactly for a countdown: minutes and seconds', () => {
    expect(formatWait(5, 'exact')).toBe('5 secondes');
    expect(formatWait(1, 'exact')).toBe('1 seconde');
    expect(formatWait(60, 'exact')).toBe('1 minute');
    expect(formatWait(80, 'exact')).toBe('1 min 20 s');
    expect(formatWait(120, 'exact')).toBe('2 minutes');
    expect(formatWait(125.4, 'exact')).toBe('2 min 6 s');
    expect(formatWait(80)).toBe('2 minutes');
  });
});
