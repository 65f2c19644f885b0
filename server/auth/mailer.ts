// Mail and SMS leave through a queue (decision 049): a message is a row of auth.message_queue,
// written in the transaction of what caused it; a worker on every instance claims due rows (one
// sender per message: SKIP LOCKED) and hands them over, trying again with back-off. No request
// waits for a relay, so a known and an unknown address answer alike. What a message carries (its
// link, code or text) waits sealed with the vault (decision 050) and is opened only to be sent.
// SMTP_URL sends for real, from MAIL_FROM; without it, each message lands in DATA_DIR/outbox as an .eml file.
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { and, desc, eq, inArray, isNotNull, sql } from 'drizzle-orm';
import nodemailer from 'nodemailer';
import type { MessageRetry } from '#server/config.ts';
import { queryRows, type Db } from '#server/db/client.ts';
import { messageQueue } from '#server/db/schema/index.ts';
import type { Logger } from '#server/log.ts';
import type { SmsSender } from './sms.ts';
import { renderMail, type MailKind, type MailVars } from './templates.ts';
import { isSealed, keyIdOfSealed, messageVarsContext, UNREADABLE_ERROR, type Vault } from './vault.ts';

/** A message as the admin sees it: never its link, code or text. */
export type QueuedMessage = {
  id: string;
  channel: 'email' | 'sms';
  kind: string;
  recipient: string;
  status: 'waiting' | 'failed';
  attempts: number;
  nextAttemptAt: Date;
  lastError: string | null;
  /** Its link or code is gone before it could leave: it died, or it did not open (lastError says which). */
  lostContent: typeof EXPIRED_ERROR | typeof UNREADABLE_ERROR | null;
  createdAt: Date;
  /** It can be sent again: its link or code is still alive. */
  retriable: boolean;
  /** A worker is handing it over right now (its claim's lease runs): «Renvoyer» would be refused. */
  sending: boolean;
};

export type Mailer = {
  /** Queues a mail on `tx`, the transaction of what caused it; call `nudge()` after the commit. */
  queue(tx: Pick<Db, 'insert'>, kind: MailKind, to: string, vars: MailVars): Promise<void>;
  /** Queues an SMS (`to` in E.164) whose code dies at `expiresAt`. */
  queueSms(tx: Pick<Db, 'insert'>, to: string, text: string, expiresAt: Date): Promise<void>;
  /** Something was just queued: the worker looks now rather than at its next poll. */
  nudge(): void;
  /**
   * What queuing a message costs (a written transaction and the worker's look), keeping nothing:
   * an address with no account answers in the time of one with an account (issue 29, item 2).
   */
  queueNothing(): Promise<void>;
  /** Starts the worker (the app does, once it listens). */
  start(): void;
  /** Resolves once no due message waits and none is being sent (tests). */
  settled(): Promise<void>;
  /** Messages waiting or failed, newest first (the admin's screen). */
  pending(): Promise<QueuedMessage[]>;
  /**
   * Sends a waiting or failed message at once, attempts counted afresh: 'retried'; 'sending' when a
   * worker is handing it over right now (it is not sent twice); 'sent' when it has just left;
   * 'gone' when it cannot be any more.
   */
  retry(id: string): Promise<RetryOutcome>;
  /** Stops claiming; a message being handed over finishes (or stays queued). */
  close(): Promise<void>;
};

export type RetryOutcome = 'retried' | 'sending' | 'sent' | 'gone';

/** Sends one rendered message, or throws. */
type Transport = { send(kind: MailKind, to: string, vars: MailVars, seq: number): Promise<void>; close(): void };

/** The worker looks at least this often: other instances' messages and retries come due. */
const POLL_MS = 1_000;
/** A claimed message is another worker's again after this (its sender died mid-way). */
const LEASE = sql`interval '2 minutes'`;
/**
 * One message is claimed at a time, just before it is sent: a lease covers one hand-over, never a
 * batch whose last rows could outlive it and be taken by another instance while still being sent.
 */
/** A relay that has not answered by then is taken as down (nodemailer's own defaults are minutes). */
const SMTP_TIMEOUT_MS = 15_000;
/** Sent rows (blank) are kept this long for the record, then deleted. */
const KEEP_SENT = sql`interval '30 days'`;
const SWEEP_EVERY_MS = 60_000;
/** A message sealed with a key this instance lacks waits this long for an instance that has it. */
const FOREIGN_KEY_DELAY_MS = 10_000;
/** `last_error` of a message whose link or code died before it could leave. */
export const EXPIRED_ERROR = 'expired';

export function createMailer(options: {
  db: Db;
  smtpUrl?: string;
  from: string;
  dataDir: string;
  sms: SmsSender;
  retry: MessageRetry;
  logger: Logger;
  vault: Pick<Vault, 'seal' | 'open' | 'holdsKeyOf'>;
}): Mailer {
  const { db, logger, retry, vault } = options;
  const transport = options.smtpUrl ? smtpTransport(options.smtpUrl, options.from, logger) : outboxTransport(options.dataDir, options.from, logger);

  let stopped = false;
  let started = false;
  let running: Promise<void> | undefined;
  let again = false;
  let poll: NodeJS.Timeout | undefined;
  let lastSweep = 0;
  /** Key ids of messages left to other instances, each logged once. */
  const foreignKeys = new Set<string>();

  type Claimed = {
    id: string;
    seq: number;
    channel: string;
    kind: string;
    recipient: string;
    vars: unknown;
    attempts: number;
    expires_at: Date | string | null;
  };

  // `id = (…)`, run once, not `id in (…)`: a plan that runs the sub-query again for each row
  // (PGlite's prepared statements keep such generic plans) claimed a second row it did not return.
  async function claim(): Promise<Claimed | undefined> {
    const [claimed] = await queryRows<Claimed>(
      db,
      sql`update auth.message_queue set attempts = attempts + 1, next_attempt_at = now() + ${LEASE}, claimed_until = now() + ${LEASE}
          where id = (select id from auth.message_queue where status = 'waiting' and next_attempt_at <= now()
                       order by next_attempt_at, seq limit 1 for update skip locked)
          returning id, seq, channel, kind, recipient, vars, attempts, expires_at`,
    );
    return claimed;
  }

  /** The row as this claim left it: a row claimed again since (its lease ran out) is the new sender's. */
  const stillOurs = (m: Claimed) => and(eq(messageQueue.id, m.id), eq(messageQueue.attempts, m.attempts));

  async function deliver(m: Claimed): Promise<void> {
    if (m.expires_at && new Date(m.expires_at).getTime() <= Date.now()) {
      await db.update(messageQueue).set({ status: 'failed', vars: null, lastError: EXPIRED_ERROR, claimedUntil: null }).where(stillOurs(m));
      logger.error('message expired before it could be sent', { id: m.id, kind: m.kind, attempts: m.attempts - 1 });
      return;
    }
    if (typeof m.vars === 'string' && isSealed(m.vars) && !vault.holdsKeyOf(m.vars)) {
      // Sealed with a key this instance lacks (a rotation under way: another instance restarted
      // with the new key, decision 050): left to an instance that has it, the attempt not counted.
      await db
        .update(messageQueue)
        .set({ status: 'waiting', attempts: m.attempts - 1, nextAttemptAt: new Date(Date.now() + FOREIGN_KEY_DELAY_MS), claimedUntil: null })
        .where(stillOurs(m));
      const keyId = keyIdOfSealed(m.vars)!;
      if (!foreignKeys.has(keyId)) {
        foreignKeys.add(keyId);
        logger.error('message sealed with an encryption key this instance does not have: left to another instance (restart it with the new ENCRYPTION_KEY)', {
          keyId,
        });
      }
      return;
    }
    let content: unknown;
    try {
      // A row queued in clear by an older version is sealed at the next start (prepareSecrets).
      content = typeof m.vars === 'string' ? JSON.parse(vault.open(m.vars, messageVarsContext(m.id))) : m.vars;
    } catch (error) {
      await db.update(messageQueue).set({ status: 'failed', vars: null, lastError: UNREADABLE_ERROR, claimedUntil: null }).where(stillOurs(m));
      logger.error('message cannot be opened', { id: m.id, kind: m.kind, error: error instanceof Error ? error.message : String(error) });
      return;
    }
    try {
      if (m.channel === 'sms') await options.sms.send(m.recipient, (content as { text: string }).text);
      else {
        const vars = content as MailVars & { expiresAt?: string };
        await transport.send(
          m.kind as MailKind,
          m.recipient,
          { ...vars, expiresAt: vars.expiresAt ? new Date(vars.expiresAt) : undefined } as MailVars,
          Number(m.seq),
        );
      }
    } catch (error) {
      const message = (error instanceof Error ? error.message : String(error)).slice(0, 500);
      const failed = m.attempts >= retry.maxAttempts;
      const delay = Math.min(retry.firstDelayMs * 2 ** (m.attempts - 1), retry.maxDelayMs);
      await db
        .update(messageQueue)
        .set({ status: failed ? 'failed' : 'waiting', lastError: message, nextAttemptAt: new Date(Date.now() + delay), claimedUntil: null })
        .where(stillOurs(m));
      logger.error(failed ? 'message failed' : 'message not sent, will try again', { id: m.id, kind: m.kind, attempts: m.attempts, error: message });
      return;
    }
    // Sent: the row keeps no link, code or text (the queue is no store of live sign-in links).
    await db.update(messageQueue).set({ status: 'sent', vars: null, sentAt: new Date(), lastError: null, claimedUntil: null }).where(stillOurs(m));
  }

  /** Dead links and codes are blanked wherever they wait; old sent rows go. */
  async function sweep(): Promise<void> {
    lastSweep = Date.now();
    await db.execute(
      sql`update auth.message_queue set vars = null, status = 'failed', last_error = ${EXPIRED_ERROR}
          where status <> 'sent' and vars is not null and expires_at <= now()`,
    );
    await db.execute(sql`delete from auth.message_queue where status = 'sent' and sent_at < now() - ${KEEP_SENT}`);
  }

  async function pass(): Promise<void> {
    if (Date.now() - lastSweep > SWEEP_EVERY_MS) await sweep();
    while (!stopped) {
      const m = await claim();
      if (!m) return;
      await deliver(m);
    }
  }

  function nudge(): void {
    if (stopped || !started) return;
    if (running) {
      again = true;
      return;
    }
    running = pass()
      .catch((error: unknown) => logger.error('message queue pass failed', { error: error instanceof Error ? error.message : String(error) }))
      .finally(() => {
        running = undefined;
        if (again) {
          again = false;
          nudge();
        }
      });
  }

  /** A new row's id and its content sealed to it: a backup or a dump holds no live link or code. */
  function sealed(content: object): { id: string; vars: string } {
    const id = randomUUID();
    return { id, vars: vault.seal(JSON.stringify(content), messageVarsContext(id)) };
  }

  return {
    async queue(tx, kind, to, vars) {
      await tx.insert(messageQueue).values({ ...sealed(vars), channel: 'email', kind, recipient: to, expiresAt: vars.expiresAt ?? null });
    },
    async queueSms(tx, to, text, expiresAt) {
      await tx.insert(messageQueue).values({ ...sealed({ text }), channel: 'sms', kind: 'sms', recipient: to, expiresAt });
    },
    nudge: () => setImmediate(nudge),
    async queueNothing() {
      await db.transaction(async (tx) => {
        const [row] = await tx
          .insert(messageQueue)
          .values({ channel: 'email', kind: 'none', recipient: '', status: 'sent' })
          .returning({ id: messageQueue.id });
        await tx.delete(messageQueue).where(eq(messageQueue.id, row!.id));
      });
      setImmediate(nudge);
    },
    start() {
      if (started) return;
      started = true;
      poll = setInterval(nudge, POLL_MS);
      poll.unref();
      nudge();
    },
    async settled() {
      for (;;) {
        while (running) await running;
        const [due] = await queryRows<{ n: number }>(
          db,
          sql`select count(*)::int as n from auth.message_queue where status = 'waiting' and next_attempt_at <= now()`,
        );
        // A pass that began while this counted may have claimed a message (its lease moves it out
        // of the count, on PostgreSQL's other connection): waited for, then counted again.
        if (running) continue;
        if (!due?.n) return;
        nudge();
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
    async pending() {
      const rows = await db
        .select({
          id: messageQueue.id,
          channel: messageQueue.channel,
          kind: messageQueue.kind,
          recipient: messageQueue.recipient,
          status: messageQueue.status,
          attempts: messageQueue.attempts,
          nextAttemptAt: messageQueue.nextAttemptAt,
          lastError: messageQueue.lastError,
          createdAt: messageQueue.createdAt,
          retriable: sql<boolean>`${messageQueue.vars} is not null`,
          sending: sql<boolean>`coalesce(${messageQueue.claimedUntil} > now(), false)`,
        })
        .from(messageQueue)
        .where(inArray(messageQueue.status, ['waiting', 'failed']))
        .orderBy(desc(messageQueue.seq))
        .limit(200);
      return rows.map((row) => ({
        ...row,
        lostContent: row.lastError === EXPIRED_ERROR || row.lastError === UNREADABLE_ERROR ? row.lastError : null,
      })) as QueuedMessage[];
    },
    async retry(id) {
      if (!/^[0-9a-f-]{36}$/i.test(id)) return 'gone';
      const alive = and(
        eq(messageQueue.id, id),
        inArray(messageQueue.status, ['waiting', 'failed']),
        isNotNull(messageQueue.vars),
        sql`(${messageQueue.expiresAt} is null or ${messageQueue.expiresAt} > now())`,
      );
      // Only a row no worker holds: not claimed (or its sender's lease ran out), and not locked by
      // a claim under way (the worker's SKIP LOCKED), so that «Renvoyer» never starts a second send.
      const [row] = await db
        .update(messageQueue)
        .set({
          status: 'waiting',
          nextAttemptAt: new Date(),
          claimedUntil: null,
          attempts: sql`case when ${messageQueue.status} = 'failed' then 0 else ${messageQueue.attempts} end`,
        })
        .where(
          and(
            alive,
            sql`(${messageQueue.claimedUntil} is null or ${messageQueue.claimedUntil} <= now())`,
            sql`${messageQueue.id} in (select id from auth.message_queue where id = ${id} for update skip locked)`,
          ),
        )
        .returning({ id: messageQueue.id });
      if (row) {
        setImmediate(nudge);
        return 'retried';
      }
      // Still alive, yet not taken: a worker holds it. Sent meanwhile (by a worker, or from another tab): it left.
      const [held] = await db.select({ id: messageQueue.id }).from(messageQueue).where(alive);
      if (held) return 'sending';
      const [sent] = await db
        .select({ id: messageQueue.id })
        .from(messageQueue)
        .where(and(eq(messageQueue.id, id), eq(messageQueue.status, 'sent')));
      return sent ? 'sent' : 'gone';
    },
    async close() {
      stopped = true;
      if (poll) clearInterval(poll);
      // The message being handed over finishes; the others stay queued for the next start.
      await running;
      transport.close();
    },
  };
}

function smtpTransport(smtpUrl: string, from: string, logger: Logger): Transport {
  // nodemailer's SMTP transport reads `url` and lets the other options add to it.
  const transport = nodemailer.createTransport({
    url: smtpUrl,
    connectionTimeout: SMTP_TIMEOUT_MS,
    greetingTimeout: SMTP_TIMEOUT_MS,
    socketTimeout: SMTP_TIMEOUT_MS,
  } as Parameters<typeof nodemailer.createTransport>[0]);
  return {
    async send(kind, to, vars) {
      await transport.sendMail({ from, to, ...renderMail(kind, vars) });
      logger.info('mail sent', { kind });
    },
    close: () => transport.close(),
  };
}

function outboxTransport(dataDir: string, from: string, logger: Logger): Transport {
  const outbox = path.join(dataDir, 'outbox');
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  return {
    async send(kind, to, vars, seq) {
      const info = await transport.sendMail({ from, to, ...renderMail(kind, vars) });
      mkdirSync(outbox, { recursive: true });
      // The queue's order breaks ties within a millisecond: names sort as the mails were queued.
      const file = path.join(outbox, `${new Date().toISOString().replace(/[:.]/g, '-')}-${String(seq).padStart(8, '0')}-${kind}.eml`);
      writeFileSync(file, info.message as Buffer);
      // No SMTP server: the log is the only way to reach the link (ARCHITECTURE.md, e-mail).
      logger.info('mail written to outbox', { kind, to, file, ...(vars.code ? { code: vars.code } : { link: vars.link }) });
    },
    close: () => {},
  };
}
