// The session cookie read on every request (decision 074): a cookie opened once is not decrypted
// again, and is refused exactly when decrypting it would refuse it.
import type { AstroCookies } from 'astro';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { readSession, writeSession } from '#lib/auth/session.server.ts';
import type { Services } from '#server/services.ts';

const servicesWith = (sessionSecret: string) => ({ config: { sessionSecret, publicUrl: 'http://atelier.test' } }) as unknown as Services;
const services = servicesWith('s'.repeat(40));

/** A jar holding the one cookie a browser would send back. */
function jar(value = '') {
  return {
    value,
    get(name: string) {
      return name === 'atelier_session' && this.value ? { value: this.value } : undefined;
    },
    set(_name: string, next: string) {
      this.value = next;
    },
  };
}
const cookiesOf = (j: ReturnType<typeof jar>) => j as unknown as AstroCookies;

async function written(): Promise<ReturnType<typeof jar>> {
  const j = jar();
  await writeSession(cookiesOf(j), services, { sessionId: 'grant-1', userId: 'user-1' });
  return j;
}

afterEach(() => {
  vi.useRealTimers();
});

describe('the session cookie', () => {
  it('names the same sign-in each time it is read, until its 30 days are over, then never again', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: new Date('2026-11-27T10:00:00Z') });
    const j = await written();
    expect(await readSession(cookiesOf(j), services)).toEqual({ sessionId: 'grant-1', userId: 'user-1' });
    vi.setSystemTime(new Date('2026-12-27T09:59:58Z'));
    expect(await readSession(cookiesOf(j), services)).toEqual({ sessionId: 'grant-1', userId: 'user-1' });
    vi.setSystemTime(new Date('2026-12-27T10:00:00Z'));
    expect(await readSession(cookiesOf(j), services)).toBeNull();
    vi.setSystemTime(new Date('2026-12-27T10:00:01Z'));
    expect(await readSession(cookiesOf(j), services)).toBeNull();
  });

  it('is decrypted once: a cookie read again hands back what its first reading opened', async () => {
    const j = await written();
    const first = await readSession(cookiesOf(j), services);
    expect(first).toEqual({ sessionId: 'grant-1', userId: 'user-1' });
    // The same object, not an equal one: nothing was decrypted the second time.
    expect(await readSession(cookiesOf(j), services)).toBe(first);
    // Another cookie of the same sign-in is its own reading.
    const other = await written();
    expect(await readSession(cookiesOf(other), services)).not.toBe(first);
  });

  it('is refused however many times a tampered or foreign one comes back', async () => {
    const j = await written();
    const good = j.value;
    const tampered = jar(`${good.slice(0, -3)}${good.endsWith('AAA') ? 'BBB' : 'AAA'}`);
    for (let i = 0; i < 2; i++) expect(await readSession(cookiesOf(tampered), services)).toBeNull();
    expect(await readSession(cookiesOf(j), services)).not.toBeNull();
    // The same cookie under another SESSION_SECRET (another instance's, a rotated one) opens nothing.
    for (let i = 0; i < 2; i++) expect(await readSession(cookiesOf(j), servicesWith('o'.repeat(40)))).toBeNull();
  });
});
