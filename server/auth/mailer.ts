// SMTP_URL sends for real, from MAIL_FROM; without it, each message lands in DATA_DIR/outbox as an .eml file.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import nodemailer from 'nodemailer';
import type { Logger } from '#server/log.ts';
import { renderMail, type MailKind, type MailVars } from './templates.ts';

export type Mailer = {
  send(kind: MailKind, to: string, vars: MailVars): Promise<void>;
  close(): void;
};

export function createMailer(options: { smtpUrl?: string; from: string; dataDir: string; logger: Logger }): Mailer {
  if (options.smtpUrl) {
    const transport = nodemailer.createTransport(options.smtpUrl);
    return {
      async send(kind, to, vars) {
        await transport.sendMail({ from: options.from, to, ...renderMail(kind, vars) });
        options.logger.info('mail sent', { kind });
      },
      close: () => transport.close(),
    };
  }
  const outbox = path.join(options.dataDir, 'outbox');
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  return {
    async send(kind, to, vars) {
      const info = await transport.sendMail({ from: options.from, to, ...renderMail(kind, vars) });
      mkdirSync(outbox, { recursive: true });
      const file = path.join(outbox, `${new Date().toISOString().replace(/[:.]/g, '-')}-${kind}.eml`);
      writeFileSync(file, info.message as Buffer);
      // No SMTP server: the log is the only way to reach the link (ARCHITECTURE.md, e-mail).
      options.logger.info('mail written to outbox', { kind, to, file, ...(vars.code ? { code: vars.code } : { link: vars.link }) });
    },
    close: () => {},
  };
}
