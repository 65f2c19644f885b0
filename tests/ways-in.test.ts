// Ways into an account (issue 30, item 6; decision 056): each one added or removed, through the
// auth API or the services the profile screens call, writes one event on the account's activity
// and one mail to its address, saying what changed, when on the workshop's clock, from which
// address, and what to do if it was not them. A change refused writes neither.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatDate, formatTime } from '#lib/format.ts';
import { queryRows } from '#server/db/client.ts';
import { DEMO_PASSWORD } from '#server/demo/seed.ts';
import { decodeMail, postJson, startTestApp, type TestApp } from './support/app.ts';
import { createSoftwareAuthenticator } from './support/software-authenticator.ts';

const EMAIL = 'commercial@demo.local';
const PHONE = '+33655501234';
const codeOf = (secret: string) => TOTP.generate({ secret: Secret.fromBase32(secret) });
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const tomorrow = () => new Date(Date.now() + 86_400_000).toISOString();

type Event = { id: string; action: string; actor_id: string | null; changes: { field: string; before: string; after: string }[] };

describe('ways into an account are audited and announced', () => {
  let t: TestApp;
  let api: string;
  let userId: string;

  beforeAll(async () => {
    t = await startTestApp('pglite', { env: { AUTH_SMS_PASSWORDLESS_ENABLED: '1' } });
    api = `${t.url}/api/auth`;
    userId = (await t.app.services.auth.findUserByEmail(EMAIL))!.id;
  });
  afterAll(() => t?.close());

  const signIn = async () => (await postJson(`${api}/signin/email-password`, { email: EMAIL, password: DEMO_PASSWORD })).body.session.accessToken as string;
  const sessionOf = (token: string) => t.app.services.auth.authenticate(token);
  const events = () =>
    queryRows<Event>(
      t.database.db,
      sql`select id, action, actor_id, changes from audit.events where entity_kind = 'user' and entity_id = ${userId}::uuid order by at, id`,
    );
  const queued = async () =>
    (
      await queryRows<{ n: number }>(t.database.db, sql`select count(*)::int as n from auth.message_queue where kind = 'wayInNotice' and recipient = ${EMAIL}`)
    )[0]!.n;
  /** The notices in DATA_DIR/outbox, decoded, oldest first. */
  async function notices(): Promise<string[]> {
    await t.app.mailer.settled();
    const dir = path.join(t.config.dataDir, 'outbox');
    const files = (() => {
      try {
        return readdirSync(dir);
      } catch {
        return []; // Nothing sent yet.
      }
    })();
    return files
      .filter((f) => f.endsWith('.eml'))
      .sort()
      .map((f) => decodeMail(readFileSync(path.join(dir, f), 'utf8')))
      .filter((m) => m.includes(`To: ${EMAIL}`) && m.includes('un moyen de connexion a chang'));
  }

  /** Runs `change` and returns the one event and the one mail it made. */
  async function oneChange(change: () => Promise<unknown>): Promise<{ event: Event; mail: string }> {
    const before = { events: await events(), queued: await queued(), notices: (await notices()).length };
    const startedAt = new Date();
    await change();
    const after = { events: await events(), queued: await queued(), notices: await notices() };
    const added = after.events.filter((e) => !before.events.some((b) => b.id === e.id));
    expect(added).toHaveLength(1);
    expect(after.queued).toBe(before.queued + 1);
    expect(after.notices).toHaveLength(before.notices + 1);
    const mail = after.notices.at(-1)!;
    // When, on the workshop's clock (Europe/Paris; the tests' server runs in UTC), and from where.
    const times = [formatTime(startedAt), formatTime(new Date())];
    expect(times.some((time) => mail.includes(`le ${formatDate(startedAt)} à ${time} (heure de l'atelier), depuis l'adresse IP 127.0.0.1.`))).toBe(true);
    expect(mail).toContain('Subject: Sécurité de votre compte : un moyen de connexion a changé');
    expect(mail).toContain("Si vous n'êtes pas à l'origine de ce changement, changez votre mot de passe sans attendre :");
    expect(mail).toContain(`${t.config.publicUrl}/sign-in?view=forgot-password`);
    expect(mail).toContain("Prévenez aussi l'administrateur de l'atelier");
    expect(added[0]!.action).toBe('changed');
    expect(added[0]!.actor_id).toBe(userId);
    return { event: added[0]!, mail };
  }
  const ip = { ip: '127.0.0.1' };

  it('a personal access token created through the API, then revoked', async () => {
    let tokenId = '';
    const created = await oneChange(async () => {
      const res = await postJson(`${api}/pat`, { expiresAt: tomorrow(), metadata: { name: 'Export compta' } }, bearer(await signIn()));
      expect(res.status).toBe(200);
      tokenId = res.body.id;
    });
    expect(created.event.changes).toEqual([{ field: "Jeton d'accès", before: '', after: 'créé : Export compta' }]);
    expect(created.mail).toContain("Le jeton d'accès « Export compta » a été créé pour votre compte le ");

    const revoked = await oneChange(() => t.app.services.auth.revokePersonalAccessToken(userId, tokenId, ip));
    expect(revoked.event.changes).toEqual([{ field: "Jeton d'accès", before: 'Export compta', after: 'révoqué' }]);
    expect(revoked.mail).toContain("Le jeton d'accès « Export compta » a été révoqué le ");
    // Revoked already: nothing changes, nothing is told.
    const count = (await events()).length;
    expect(await t.app.services.auth.revokePersonalAccessToken(userId, tokenId, ip)).toBe(false);
    expect((await events()).length).toBe(count);
  });

  it('a security key added through the API, then removed', async () => {
    const token = await signIn();
    const key = createSoftwareAuthenticator({ origin: new URL(t.config.publicUrl).origin, rpId: t.config.webauthn.rpId });
    let keyId = '';
    const added = await oneChange(async () => {
      const options = await postJson(`${api}/user/webauthn/add`, {}, bearer(token));
      const res = await postJson(`${api}/user/webauthn/verify`, { credential: key.register(options.body), nickname: 'Clé du comptoir' }, bearer(token));
      expect(res.status).toBe(200);
      keyId = res.body.id;
    });
    expect(added.event.changes).toEqual([{ field: 'Clé de sécurité', before: '', after: 'ajoutée : Clé du comptoir' }]);
    expect(added.mail).toContain('La clé de sécurité « Clé du comptoir » a été ajoutée à votre compte le ');

    // The first key elevated this sign-in: it may remove it.
    const removed = await oneChange(async () => t.app.services.webauthn.removeSecurityKey(await sessionOf(token), keyId, ip));
    expect(removed.event.changes).toEqual([{ field: 'Clé de sécurité', before: 'Clé du comptoir', after: 'supprimée' }]);
    expect(removed.mail).toContain('La clé de sécurité « Clé du comptoir » a été retirée de votre compte le ');
  });

  it('a phone number for SMS sign-in, kept from the code sent to it, then removed', async () => {
    const { passwordless } = t.app.services;
    const session = await sessionOf(await signIn());
    await passwordless.sendPhoneCode(session, PHONE, ip);
    await t.app.mailer.settled();
    const dir = path.join(t.config.dataDir, 'outbox');
    const sms = readdirSync(dir)
      .filter((f) => f.endsWith('.sms.txt'))
      .map((f) => readFileSync(path.join(dir, f), 'utf8'))
      .find((text) => text.startsWith(`To: ${PHONE}\n`))!;
    const code = sms.match(/confirmer ce numéro est (\d{6})\./)![1]!;
    const added = await oneChange(() => passwordless.confirmPhone(session, PHONE, code, ip));
    expect(added.event.changes).toEqual([{ field: 'Numéro pour la connexion par SMS', before: '', after: PHONE }]);
    expect(added.mail).toContain(`Le numéro ${PHONE} permet désormais de se connecter à votre compte par SMS le `);

    const removed = await oneChange(() => passwordless.removePhone(session, ip));
    expect(removed.event.changes).toEqual([{ field: 'Numéro pour la connexion par SMS', before: PHONE, after: '' }]);
    expect(removed.mail).toContain(`Le numéro ${PHONE} ne permet plus de se connecter à votre compte par SMS le `);
    // No number left: removing again tells no one.
    const count = (await events()).length;
    await passwordless.removePhone(session, ip);
    expect((await events()).length).toBe(count);
  });

  it('an authenticator app switched on through the API, its recovery codes renewed, then switched off', async () => {
    const headers = bearer(await signIn());
    const forgetLastCode = () => t.database.db.execute(sql`update auth.users set totp_last_step = null where id = ${userId}::uuid`);
    let secret = '';
    const enabled = await oneChange(async () => {
      secret = (await fetch(`${api}/mfa/totp/generate`, { headers }).then((r) => r.json())).totpSecret;
      expect((await postJson(`${api}/user/mfa`, { code: codeOf(secret), activeMfaType: 'totp' }, headers)).status).toBe(200);
    });
    expect(enabled.event.changes).toEqual([{ field: "Application d'authentification", before: '', after: 'activée' }]);
    expect(enabled.mail).toContain("La validation en deux étapes par application d'authentification a été activée sur votre compte le ");

    await forgetLastCode();
    const renewed = await oneChange(async () =>
      t.app.services.mfa.regenerateRecoveryCodes(await sessionOf(headers.authorization.slice(7)), codeOf(secret), ip),
    );
    expect(renewed.event.changes).toEqual([{ field: 'Codes de secours', before: '', after: 'renouvelés' }]);
    expect(renewed.mail).toContain('De nouveaux codes de secours ont été créés pour votre compte (les anciens ne fonctionnent plus) le ');

    // A wrong code changes nothing and tells no one.
    const count = { events: (await events()).length, queued: await queued() };
    const wrong = String((Number(codeOf(secret)) + 1) % 1_000_000).padStart(6, '0');
    expect((await postJson(`${api}/user/mfa`, { code: wrong, activeMfaType: '' }, headers)).status).toBe(400);
    expect({ events: (await events()).length, queued: await queued() }).toEqual(count);

    await forgetLastCode();
    const disabled = await oneChange(async () => {
      expect((await postJson(`${api}/user/mfa`, { code: codeOf(secret), activeMfaType: '' }, headers)).status).toBe(200);
    });
    expect(disabled.event.changes).toEqual([{ field: "Application d'authentification", before: 'activée', after: 'désactivée' }]);
    expect(disabled.mail).toContain("La validation en deux étapes par application d'authentification a été désactivée sur votre compte le ");
  });

  it('the password changed through the API', async () => {
    const changed = await oneChange(async () => {
      const res = await postJson(`${api}/user/password`, { newPassword: 'Nouveau-Passe-2026!', currentPassword: DEMO_PASSWORD }, bearer(await signIn()));
      expect(res.status).toBe(200);
    });
    expect(changed.event.changes).toEqual([{ field: 'Mot de passe', before: '', after: 'modifié' }]);
    expect(changed.mail).toContain('Le mot de passe de votre compte a été modifié le ');
  });
});
