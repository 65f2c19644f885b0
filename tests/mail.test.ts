// Real SMTP: the app sends its French e-mails to an smtp-server started here.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_PASSWORD } from '#server/demo/seed.ts';
import { decodeMail, postJson, startTestApp, verifyLink, type TestApp } from './support/app.ts';
import { type Relay, startRelay } from './support/relay.ts';

describe('e-mail over SMTP', () => {
  let relay: Relay;
  let received: Relay['messages'];
  let t: TestApp;
  let api: string;

  beforeAll(async () => {
    relay = await startRelay();
    received = relay.messages;
    t = await startTestApp('pglite', { smtpUrl: relay.url, mailFrom: 'Garage Dupont <atelier@garage-dupont.fr>' });
    api = `${t.url}/api/auth`;
  });
  afterAll(async () => {
    await t?.close();
    await relay?.stop();
  });

  it('sends the password reset e-mail in French, text and HTML, with a working link', async () => {
    await postJson(`${api}/user/password/reset`, { email: 'diagnostic@demo.local' });
    await t.app.mailer.settled();
    const mail = received.at(-1)!;
    expect(mail.to).toEqual(['diagnostic@demo.local']);
    // MAIL_FROM: the workshop's own sender, in the envelope and the header.
    expect(mail.from).toBe('atelier@garage-dupont.fr');
    const text = decodeMail(mail.raw);
    expect(text).toMatch(/^From: Garage Dupont <atelier@garage-dupont\.fr>$/m);
    expect(text).toContain('Subject: Réinitialisation de votre mot de passe');
    expect(text).toContain('Bonjour Julien Moreau,');
    expect(text).toContain('Choisir un nouveau mot de passe');
    expect(mail.raw).toMatch(/Content-Type: text\/plain; charset=utf-8/);
    expect(mail.raw).toMatch(/Content-Type: text\/html; charset=utf-8/);
    const landing = await fetch(verifyLink(mail.raw), { redirect: 'manual' });
    expect(new URL(landing.headers.get('location')!).searchParams.get('refreshToken')).toBeTruthy();
    expect(await t.outbox()).toEqual([]);
  });

  it('sends the verification and e-mail change messages', async () => {
    await postJson(`${api}/signup/email-password`, { email: 'apprenti@garage.fr', password: 'Apprenti-2026!' });
    await t.app.mailer.settled();
    expect(decodeMail(received.at(-1)!.raw)).toContain('Subject: Confirmez votre adresse e-mail');

    const { session } = (await postJson(`${api}/signin/email-password`, { email: 'commercial@demo.local', password: DEMO_PASSWORD })).body;
    await postJson(`${api}/user/email/change`, { newEmail: 'ventes@demo.local' }, { authorization: `Bearer ${session.accessToken}` });
    await t.app.mailer.settled();
    const [change, notice] = received.slice(-2);
    expect(change!.to).toEqual(['ventes@demo.local']);
    expect(decodeMail(change!.raw)).toContain('Subject: Confirmez votre nouvelle adresse e-mail');
    expect(notice!.to).toEqual(['commercial@demo.local']);
    expect(decodeMail(notice!.raw)).toContain('Subject: Demande de changement de votre adresse e-mail');
  });

  it('sends the "set your password" message of a new account', async () => {
    const user = await t.app.services.auth.findUserByEmail('mecanicien@demo.local');
    await t.app.services.auth.sendSetPasswordEmail(user!.id);
    await t.app.mailer.settled();
    const text = decodeMail(received.at(-1)!.raw);
    expect(text).toContain('Subject: Votre compte a été créé');
    expect(verifyLink(received.at(-1)!.raw)).toContain('type=setPassword');
  });

  it('answers OK when the SMTP server is gone: the mail waits in the queue (tests/mail-queue.test.ts)', async () => {
    await relay.down();
    const res = await postJson(`${api}/user/password/reset`, { email: 'admin@demo.local' });
    expect(res.body).toEqual('OK');
  });
});
