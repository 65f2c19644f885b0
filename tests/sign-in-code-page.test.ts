// The sign-in's code step when the throttle answers (issue 29 day-walk): the page says that too
// many wrong codes were typed and the wait in seconds, and keeps the ticket, so that the right
// code works once the wait is over. The e2e server widens the throttle; this app keeps it.
import { sql } from 'drizzle-orm';
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_PASSWORD } from '#server/demo/seed.ts';
import { htmlText } from './support/browser.ts';
import { postJson, startTestApp, type TestApp } from './support/app.ts';

const EMAIL = 'diagnostic@demo.local';
const codeOf = (secret: string, steps = 0) => TOTP.generate({ secret: Secret.fromBase32(secret), timestamp: Date.now() + steps * 30_000 });

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp('pglite', { pages: true });
});
afterAll(() => t?.close());

/**
 * A form of /sign-in posted as a browser without JavaScript posts it: a refusal that ends the code
 * step moves to the page's own address (decision 087), whose GET shows it (`html`).
 */
const post = async (fields: Record<string, string>) => {
  const res = await fetch(`${t.url}/sign-in`, {
    method: 'POST',
    redirect: 'manual',
    headers: { origin: t.url, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields),
  });
  const location = res.headers.get('location');
  if (res.status !== 303 || !location?.startsWith('/sign-in')) return { status: res.status, html: await res.text(), location };
  // The cookies it set, not those it deleted.
  const cookie = res.headers
    .getSetCookie()
    .filter((line) => !/max-age=0|expires=thu, 01 jan 1970/i.test(line))
    .map((line) => line.split(';')[0])
    .join('; ');
  const shown = await fetch(`${t.url}${location}`, { headers: { cookie } });
  return { status: res.status, html: await shown.text(), location };
};
const ticketIn = (html: string) => /name="ticket" value="([^"]+)"/.exec(html)?.[1];

describe('the sign-in code step under the throttle', () => {
  it('says the wait in seconds, keeps the ticket, and takes the right code after the wait', async () => {
    const api = `${t.url}/api/auth`;
    const session = (await postJson(`${api}/signin/email-password`, { email: EMAIL, password: DEMO_PASSWORD })).body.session;
    const headers = { authorization: `Bearer ${session.accessToken}` };
    const secret = (await fetch(`${api}/mfa/totp/generate`, { headers }).then((r) => r.json())).totpSecret as string;
    expect((await postJson(`${api}/user/mfa`, { code: codeOf(secret), activeMfaType: 'totp' }, headers)).status).toBe(200);

    let ticket = ticketIn((await post({ email: EMAIL, password: DEMO_PASSWORD })).html)!;
    expect(ticket).toBeTruthy();
    for (let i = 0; i < 4; i++) expect((await post({ email: EMAIL, ticket, otp: '000000' })).status).toBe(400);
    // The fifth spends the ticket: said so, the e-mail kept for the password alone.
    const spent = await post({ email: EMAIL, ticket, otp: '000000' });
    expect(htmlText(spent.html)).toContain('Trop de codes incorrects : cette vérification est close. Saisissez de nouveau votre mot de passe.');
    expect(spent.html).toContain(`value="${EMAIL}"`);
    expect(ticketIn(spent.html)).toBeUndefined();

    ticket = ticketIn((await post({ email: EMAIL, password: DEMO_PASSWORD })).html)!;
    // Wrong codes until the throttle answers (each failure past the fifth doubles the wait).
    let throttled: Awaited<ReturnType<typeof post>> | undefined;
    for (let i = 0; i < 3 && !throttled; i++) {
      const answer = await post({ email: EMAIL, ticket, otp: '000000' });
      if (answer.status === 429) throttled = answer;
    }
    expect(throttled?.status).toBe(429);
    const text = htmlText(throttled!.html);
    const wait = Number(/Trop de codes incorrects\. Réessayez dans (\d+) secondes? avec un nouveau code\./.exec(text)?.[1]);
    expect(wait, text).toBeGreaterThan(0);
    expect(wait).toBeLessThan(60);
    // The ticket holds: the right code works once the wait is over.
    expect(ticketIn(throttled!.html)).toBe(ticket);
    await new Promise((resolve) => setTimeout(resolve, wait * 1000 + 200));
    const signedIn = await post({ email: EMAIL, ticket, otp: codeOf(secret, 1) });
    expect(signedIn).toMatchObject({ status: 303, location: '/repair-orders' });
  });

  it('drops the ticket when the wait outlasts it, and asks for the password after the wait', async () => {
    // The success above forgot this address's failures: five wrong codes spend a ticket again.
    let ticket = ticketIn((await post({ email: EMAIL, password: DEMO_PASSWORD })).html)!;
    for (let i = 0; i < 5; i++) await post({ email: EMAIL, ticket, otp: '000000' });
    ticket = ticketIn((await post({ email: EMAIL, password: DEMO_PASSWORD })).html)!;
    let throttled = false;
    for (let i = 0; i < 3 && !throttled; i++) throttled = (await post({ email: EMAIL, ticket, otp: '000000' })).status === 429;
    expect(throttled).toBe(true);
    // The ticket has one second left (five minutes at most, while waits reach fifteen): the wait outlasts it.
    await t.database.db.execute(sql`update auth.challenges set expires_at = now() + interval '1 second' where kind = 'mfaTotp' and used_at is null`);
    const answer = await post({ email: EMAIL, ticket, otp: '000000' });
    // The password step again, at the page's own address: a reload sends no code.
    expect(answer).toMatchObject({ status: 303, location: '/sign-in' });
    const text = htmlText(answer.html);
    expect(text).toMatch(/Trop de codes incorrects\. Réessayez dans \d+ secondes? : saisissez alors de nouveau votre mot de passe\./);
    expect(text).not.toContain('avec un nouveau code');
    expect(ticketIn(answer.html)).toBeUndefined();
    expect(answer.html).toContain(`value="${EMAIL}"`);
    expect(answer.html).toContain('name="password"');
  });
});
