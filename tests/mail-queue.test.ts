// Mail leaves through a queue (issue 29, item 2): the request answers before any network I/O, a
// relay that is down delays mail without losing it, and each message has one sender.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMailer } from '#server/auth/mailer.ts';
import { createKeyring, createVault, resealSecrets } from '#server/auth/vault.ts';
import { type Db, openDatabase } from '#server/db/client.ts';
import type { Logger } from '#server/log.ts';
import { messageQueue } from '#server/db/schema/index.ts';
import { browser, htmlText } from './support/browser.ts';
import { decodeMail, postJson, startTestApp, verifyLink, type TestApp } from './support/app.ts';
import { type Relay, startRelay } from './support/relay.ts';

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

/**
 * Another instance's mailer beside `t`'s app: `t`'s database and keys unless told, a silent log,
 * the outbox of `dataDir` unless a relay is named.
 */
function anotherMailer(t: TestApp, options: { db?: Db; dataDir: string; smtpUrl?: string; logger?: Logger; keys?: string[] }) {
  const db = options.db ?? t.database.db;
  return createMailer({
    db,
    ...(options.smtpUrl ? { smtpUrl: options.smtpUrl } : {}),
    from: 'a@b.fr',
    dataDir: options.dataDir,
    sms: { send: async () => {} },
    retry: t.config.messageRetry,
    logger: options.logger ?? { info: () => {}, error: () => {} },
    vault: createVault(db, createKeyring(options.keys ?? t.config.encryptionKeys)),
  });
}

/** A page's text as read: a tag is a space, a line-break opportunity (`<wbr>`) is nothing. */
const textOf = (html: string) => htmlText(html.replace(/<wbr>/g, '').replace(/<[^>]+>/g, ' '));
/** The cells of the queue's row for `recipient`, each as the wide screen shows it (one column each). */
const cellsOf = (html: string, recipient: string) => {
  const row = (html.match(/<tr[\s\S]*?<\/tr>/g) ?? []).find((tr) => tr.includes('<td') && textOf(tr).includes(recipient));
  return [...(row ?? '').matchAll(/<t[hd][^>]*>([\s\S]*?)<\/t[hd]>/g)].map((cell) => textOf(cell[1]!).replace(/\s+/g, ' ').trim());
};

async function timed(url: string, body: unknown): Promise<number> {
  const started = performance.now();
  const res = await postJson(url, body);
  const ms = performance.now() - started;
  expect(res.status).toBe(200);
  return ms;
}

describe('a known and an unknown address answer in the same time (relay taking 250 ms)', () => {
  let relay: Relay;
  let t: TestApp;

  beforeAll(async () => {
    relay = await startRelay({ delayMs: 250 });
    t = await startTestApp('pglite', { smtpUrl: relay.url });
  });
  afterAll(async () => {
    await t?.close();
    await relay?.stop();
  });

  for (const path of ['/signin/passwordless/email', '/signin/otp/email', '/user/password/reset']) {
    it(`POST ${path}`, async () => {
      const url = `${t.url}/api/auth${path}`;
      const known = 'diagnostic@demo.local';
      const unknown = 'personne@demo.local';
      // Warm-up: the route, the queries and the connection are ready for both.
      for (let i = 0; i < 3; i++) {
        await timed(url, { email: known });
        await timed(url, { email: unknown });
      }
      const knownMs: number[] = [];
      const unknownMs: number[] = [];
      // Interleaved, so the machine's noise falls on both alike.
      for (let i = 0; i < 21; i++) {
        knownMs.push(await timed(url, { email: known }));
        unknownMs.push(await timed(url, { email: unknown }));
      }
      const [k, u] = [median(knownMs), median(unknownMs)];
      console.log(`${path}: median known ${k.toFixed(1)} ms, unknown ${u.toFixed(1)} ms`);
      expect(Math.abs(k - u)).toBeLessThan(10);
    }, 60_000);
  }
});

const until = async (check: () => Promise<boolean>, what: string, ms = 10_000) => {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
};

describe('a relay that is down delays mail without losing it', () => {
  let relay: Relay;
  let t: TestApp;
  const rowsOf = async (recipient: string) =>
    (await t.database.db
      .select()
      .from(messageQueue)
      .where(eq(messageQueue.recipient, recipient))
      .orderBy(messageQueue.seq)) as (typeof messageQueue.$inferSelect)[];

  beforeAll(async () => {
    relay = await startRelay({ down: true });
    // Quick back-off, so the test sees several attempts and the last one.
    t = await startTestApp('pglite', {
      pages: true,
      smtpUrl: relay.url,
      messageRetry: { firstDelayMs: 100, maxDelayMs: 400, maxAttempts: 5 },
    });
  });
  afterAll(async () => {
    await t?.close();
    await relay?.stop();
  });
  /** The row as a backup or a dump would hold it: every column as text. */
  const rawRowOf = async (recipient: string) =>
    JSON.stringify(await t.database.db.execute(sql`select * from auth.message_queue where recipient = ${recipient}`));

  it('keeps the message queued with its attempts and error, and sends it once the relay is back', async () => {
    const res = await postJson(`${t.url}/api/auth/user/password/reset`, { email: 'diagnostic@demo.local' });
    expect(res.status).toBe(200);
    await until(async () => ((await rowsOf('diagnostic@demo.local'))[0]?.attempts ?? 0) >= 2, 'two attempts');
    const [waiting] = await rowsOf('diagnostic@demo.local');
    expect(waiting).toMatchObject({ status: 'waiting', kind: 'passwordReset' });
    expect(waiting!.lastError).toMatch(/ECONNREFUSED/);
    expect(waiting!.nextAttemptAt.getTime()).toBeGreaterThan(waiting!.createdAt.getTime());
    // While it waits (up to a day), its link is sealed (decision 050): a backup taken now has none.
    const raw = await rawRowOf('diagnostic@demo.local');
    expect(raw).not.toContain('ticket');
    expect(raw).not.toContain('/api/auth/verify');
    expect(raw).toContain('enc1:');

    await relay.up();
    await until(async () => (await rowsOf('diagnostic@demo.local'))[0]?.status === 'sent', 'the message sent');
    expect(relay.messages).toHaveLength(1);
    expect(decodeMail(relay.messages[0]!.raw)).toContain('Subject: Réinitialisation de votre mot de passe');
    // The link opened at send time works.
    const landing = await fetch(verifyLink(relay.messages[0]!.raw), { redirect: 'manual' });
    expect(new URL(landing.headers.get('location')!).searchParams.get('refreshToken')).toBeTruthy();
    // Sent: the row holds no link any more.
    const [sent] = await rowsOf('diagnostic@demo.local');
    expect(sent!.vars).toBeNull();
    expect(JSON.stringify(sent)).not.toContain('ticket');
  });

  it('keeps a one-time code sealed while it waits, and mails the working code', async () => {
    await relay.down();
    await postJson(`${t.url}/api/auth/signin/otp/email`, { email: 'mecanicien@demo.local' });
    await until(async () => ((await rowsOf('mecanicien@demo.local'))[0]?.attempts ?? 0) >= 1, 'an attempt');
    const raw = await rawRowOf('mecanicien@demo.local');
    const since = relay.messages.length;
    await relay.up();
    const mail = decodeMail((await relay.waitFor('mecanicien@demo.local', { since })).raw);
    const code = mail.match(/Votre code de connexion :\n(\d{6})\n/)![1]!;
    expect(raw).not.toContain(code);
    expect(raw).toContain('enc1:');
    const verified = await postJson(`${t.url}/api/auth/signin/otp/email/verify`, { email: 'mecanicien@demo.local', otp: code });
    expect(verified.body.session.user.email).toBe('mecanicien@demo.local');
  });

  it('marks it failed after the last attempt, and "retry now" sends it', async () => {
    await relay.down();
    await postJson(`${t.url}/api/auth/user/password/reset`, { email: 'commercial@demo.local' });
    await until(async () => (await rowsOf('commercial@demo.local'))[0]?.status === 'failed', 'the message failed');
    const [failed] = await rowsOf('commercial@demo.local');
    expect(failed!.attempts).toBe(5);
    const pending = await t.app.mailer.pending();
    expect(pending.find((m) => m.id === failed!.id)).toMatchObject({ status: 'failed', recipient: 'commercial@demo.local', attempts: 5, retriable: true });
    expect(JSON.stringify(pending)).not.toContain('ticket=');

    // The admin's screen: what it is, for whom, how many attempts, why; never the link.
    const admin = browser(t.url);
    await admin.signIn('admin@demo.local');
    const page = await admin.request('/users/messages');
    expect(page.status).toBe(200);
    const html = await page.text();
    const text = textOf(html);
    expect(text).toContain('Messages en attente ou en échec');
    const [message, recipient, state, attempts, error] = cellsOf(html, 'commercial@demo.local');
    expect(message).toMatch(/^Réinitialisation du mot de passe/);
    expect(recipient).toBe('commercial@demo.local');
    expect(state).toMatch(/^Échec/);
    expect(attempts).toBe('5');
    expect(error).toMatch(/^Une erreur est survenue lors de l'envoi de l'email connect ECONNREFUSED/);
    expect(html).not.toContain('ticket');
    expect(html).not.toContain('/api/auth/verify');
    // Not for other roles.
    const mechanic = browser(t.url);
    await mechanic.signIn('mecanicien@demo.local');
    const refused = await mechanic.request('/users/messages');
    expect(refused.status).toBe(302);
    expect(refused.headers.get('location')).toBe('/repair-orders');

    await relay.up();
    const retried = await admin.request('/users/messages', { method: 'POST', body: new URLSearchParams({ id: failed!.id }) });
    expect(retried.status).toBe(303);
    await until(async () => (await rowsOf('commercial@demo.local'))[0]?.status === 'sent', 'the message sent');
    expect(relay.messages.filter((m) => m.to.includes('commercial@demo.local'))).toHaveLength(1);
    // «Renvoyer» once more (a second tab, or a worker sending it in between): it has just left.
    const again = await admin.request('/users/messages', { method: 'POST', body: new URLSearchParams({ id: failed!.id }) });
    expect(again.status).toBe(303);
    const told = textOf(await (await admin.request('/users/messages')).text());
    expect(told).toContain('Ce message vient de partir.');
    expect(told).not.toContain('a expiré');
    expect(relay.messages.filter((m) => m.to.includes('commercial@demo.local'))).toHaveLength(1);
    // A content that did not open: said in French, without «Renvoyer».
    await t.database.db.update(messageQueue).set({ status: 'failed', lastError: 'unreadable', vars: null }).where(eq(messageQueue.id, failed!.id));
    const listed = cellsOf(await (await admin.request('/users/messages')).text(), 'commercial@demo.local');
    expect(listed[2]).toMatch(/^Échec/);
    expect(listed[4]).toBe('Lien ou code illisible : la clé de chiffrement qui le protégeait manque à cette installation');
    expect(listed.at(-1)).not.toContain('Renvoyer');
  });

  it('keeps what is queued when the server stops (it goes at the next start)', async () => {
    await relay.down();
    await postJson(`${t.url}/api/auth/user/password/reset`, { email: 'admin@demo.local' });
    await until(async () => ((await rowsOf('admin@demo.local'))[0]?.attempts ?? 0) >= 1, 'an attempt');
    await t.app.mailer.close();
    const [kept] = await rowsOf('admin@demo.local');
    expect(kept).toMatchObject({ status: 'waiting' });
    expect(kept!.vars).not.toBeNull();
  });
});

describe('one sender per message, with two workers on one PostgreSQL', () => {
  it('sends each of 30 messages once', async () => {
    const t = await startTestApp('postgres');
    const second = await openDatabase({ dataDir: t.config.dataDir, databaseUrl: t.config.databaseUrl });
    const otherDir = mkdtempSync(path.join(tmpdir(), 'atelier-other-'));
    const lines: Record<string, unknown>[] = [];
    const logger = { info: (msg: string, f?: object) => lines.push({ msg, ...f }), error: () => {} };
    const other = anotherMailer(t, { db: second.db, dataDir: otherDir, logger });
    try {
      await t.database.db.transaction(async (tx) => {
        for (let i = 0; i < 30; i++) await t.app.mailer.queue(tx, 'passwordReset', `m${i}@demo.local`, { displayName: '', link: `http://x/${i}` });
      });
      const [retried] = await t.database.db.select({ id: messageQueue.id }).from(messageQueue).where(eq(messageQueue.recipient, 'm15@demo.local'));
      other.start();
      t.app.mailer.nudge();
      other.nudge();
      // «Renvoyer» while both workers claim (its FOR UPDATE SKIP LOCKED, on PostgreSQL): never a second send.
      expect(['retried', 'sending', 'sent']).toContain(await other.retry(retried!.id));
      await Promise.all([t.app.mailer.settled(), other.settled()]);
      expect(await t.app.mailer.retry(retried!.id)).toBe('sent');
      const sent = [...(await t.outbox()), ...readdirSync(path.join(otherDir, 'outbox')).map((f) => readFileSync(path.join(otherDir, 'outbox', f), 'utf8'))];
      const recipients = sent.map((raw) => raw.match(/^To: (\S+)$/m)?.[1]).sort();
      expect(recipients).toHaveLength(30);
      expect(new Set(recipients).size).toBe(30);
    } finally {
      await other.close();
      await second.close();
      await t.close();
      rmSync(otherDir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('«Renvoyer» on a message another worker is sending right now', () => {
  it('does not send it a second time, and says it is being sent', async () => {
    // The relay holds each message 1.5 s: the first worker's send is caught in the middle.
    const relay = await startRelay({ delayMs: 1_500 });
    const t = await startTestApp('pglite', { pages: true, smtpUrl: relay.url });
    const other = anotherMailer(t, { dataDir: t.config.dataDir, smtpUrl: relay.url });
    try {
      other.start();
      const admin = browser(t.url);
      await admin.signIn('admin@demo.local');
      await postJson(`${t.url}/api/auth/user/password/reset`, { email: 'diagnostic@demo.local' });
      const rowOf = async () => (await t.database.db.select().from(messageQueue).where(eq(messageQueue.recipient, 'diagnostic@demo.local')))[0];
      await until(async () => ((await rowOf())?.attempts ?? 0) >= 1, 'the message claimed');
      // The list says it is leaving, and offers no «Renvoyer» for it.
      const html = await (await admin.request('/users/messages')).text();
      expect(textOf(html)).toMatch(/Réinitialisation du mot de passe.*diagnostic@demo\.local\s+En cours d'envoi/s);
      expect(html).not.toMatch(/<button[^>]*>\s*Renvoyer/);
      const resent = await admin.request('/users/messages', { method: 'POST', body: new URLSearchParams({ id: (await rowOf())!.id }) });
      expect(resent.status).toBe(303);
      await until(async () => (await rowOf())?.status === 'sent', 'the message sent');
      // Long enough for a second send, had one been started.
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      expect(relay.messages.filter((m) => m.to.includes('diagnostic@demo.local'))).toHaveLength(1);
      const text = textOf(await (await admin.request('/users/messages')).text());
      expect(text).toContain("Ce message est en train de partir : il n'est pas renvoyé une seconde fois.");
    } finally {
      await other.close();
      await t.close();
      await relay.stop();
    }
  }, 60_000);
});

describe('an instance without the key a message was sealed with (a rotation under way)', () => {
  it('leaves the message to an instance that has it, and marks failed only a content that does not open', async () => {
    const t = await startTestApp('pglite');
    const newKey = randomBytes(32).toString('hex');
    const otherDir = mkdtempSync(path.join(tmpdir(), 'atelier-other-'));
    // Restarted with the new key first and the old one as ENCRYPTION_KEY_PREVIOUS; `t`'s instance not yet.
    const restarted = anotherMailer(t, { dataDir: otherDir, keys: [newKey, ...t.config.encryptionKeys] });
    const rowOf = async (recipient: string) => (await t.database.db.select().from(messageQueue).where(eq(messageQueue.recipient, recipient)))[0]!;
    try {
      await t.database.db.transaction((tx) => restarted.queue(tx, 'passwordReset', 'nouvelle-cle@demo.local', { displayName: '', link: 'http://x/new' }));
      // A content moved from another row: the key is there, yet it does not open. Queued and moved in
      // one transaction, so the worker the queueing wakes never sees the row before its content moved.
      await t.database.db.transaction(async (tx) => {
        await t.app.mailer.queue(tx, 'passwordReset', 'deplace@demo.local', { displayName: '', link: 'http://x/moved' });
        await t.app.mailer.queue(tx, 'passwordReset', 'donneur@demo.local', { displayName: '', link: 'http://x/donor' });
        const [donor] = await tx.select().from(messageQueue).where(eq(messageQueue.recipient, 'donneur@demo.local'));
        await tx.update(messageQueue).set({ vars: donor!.vars }).where(eq(messageQueue.recipient, 'deplace@demo.local'));
      });
      const moved = await rowOf('deplace@demo.local');
      const sealedNew = (await rowOf('nouvelle-cle@demo.local')).vars;
      t.app.mailer.nudge();
      await t.app.mailer.settled();

      // The old instance claimed it, could not open it, and put it back untouched.
      const left = await rowOf('nouvelle-cle@demo.local');
      expect(left).toMatchObject({ status: 'waiting', attempts: 0, claimedUntil: null, lastError: null });
      expect(left.vars).toBe(sealedNew);
      expect(left.nextAttemptAt.getTime()).toBeGreaterThan(Date.now());
      expect((await t.outbox()).join('\n')).not.toContain('nouvelle-cle@demo.local');
      const [altered] = await t.database.db.select().from(messageQueue).where(eq(messageQueue.id, moved.id));
      expect(altered).toMatchObject({ status: 'failed', lastError: 'unreadable', vars: null });

      // The restarted instance sends it.
      await t.database.db.update(messageQueue).set({ nextAttemptAt: new Date() }).where(eq(messageQueue.id, left.id));
      restarted.start();
      await until(async () => (await rowOf('nouvelle-cle@demo.local')).status === 'sent', 'the message sent by the instance with the key');
      const sent = readdirSync(path.join(otherDir, 'outbox')).map((f) => readFileSync(path.join(otherDir, 'outbox', f), 'utf8'));
      expect(sent.join('\n')).toContain('To: nouvelle-cle@demo.local');
      expect((await rowOf('nouvelle-cle@demo.local')).attempts).toBe(1);
    } finally {
      await restarted.close();
      await t.close();
      rmSync(otherDir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('a rotation while a worker sends a queued message (PostgreSQL)', () => {
  it('never writes the sealed link back into a message sent meanwhile', async () => {
    const t = await startTestApp('postgres');
    const worker = await openDatabase({ dataDir: t.config.dataDir, databaseUrl: t.config.databaseUrl });
    try {
      await t.app.mailer.close();
      await t.database.db.transaction((tx) => t.app.mailer.queue(tx, 'passwordReset', 'pendant@demo.local', { displayName: '', link: 'http://x/r' }));
      const [row] = await t.database.db.select().from(messageQueue).where(eq(messageQueue.recipient, 'pendant@demo.local'));
      const keyring = createKeyring([randomBytes(32).toString('hex'), ...t.config.encryptionKeys]);
      let rotated: Promise<number> | undefined;
      // Another instance's worker holds the row while the rotation reads the queue, then sends it.
      await worker.db.transaction(async (tx) => {
        await tx.execute(sql`select id from auth.message_queue where id = ${row!.id} for update`);
        rotated = resealSecrets(t.database.db, keyring);
        await new Promise((resolve) => setTimeout(resolve, 1_000));
        await tx.update(messageQueue).set({ status: 'sent', vars: null, sentAt: new Date() }).where(eq(messageQueue.id, row!.id));
      });
      await rotated;
      const [after] = await t.database.db.select().from(messageQueue).where(eq(messageQueue.id, row!.id));
      expect(after).toMatchObject({ status: 'sent', vars: null });
    } finally {
      await worker.close();
      await t.close();
    }
  }, 60_000);
});
