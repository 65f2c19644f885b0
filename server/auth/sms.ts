// SMS one-time codes leave through a sender: Twilio's REST API when configured (AUTH_SMS_TWILIO_*),
// else each message lands in DATA_DIR/outbox as a .sms.txt file, as e-mails do without SMTP.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { SmsConfig } from '#server/config.ts';
import type { Logger } from '#server/log.ts';

export type SmsSender = {
  /** `to` in E.164; throws when the message could not be handed over. */
  send(to: string, text: string): Promise<void>;
};

/** A provider that has not answered by then is taken as down: the user may ask again. */
const SEND_TIMEOUT_MS = 10_000;

export function createSmsSender(options: { sms: SmsConfig; dataDir: string; logger: Logger }): SmsSender {
  const { twilio } = options.sms;
  if (twilio) return twilioSender(twilio, options.logger);
  const outbox = path.join(options.dataDir, 'outbox');
  return {
    async send(to, text) {
      mkdirSync(outbox, { recursive: true });
      const file = path.join(outbox, `${new Date().toISOString().replace(/[:.]/g, '-')}-${to.replace(/\D/g, '')}.sms.txt`);
      writeFileSync(file, `To: ${to}\n\n${text}\n`);
      // No provider: the outbox and the log are the only ways to reach the code.
      options.logger.info('sms written to outbox', { to, file, text });
    },
  };
}

/** Twilio's Messages resource: a form POST with basic auth, 201 when accepted. */
function twilioSender(twilio: NonNullable<SmsConfig['twilio']>, logger: Logger): SmsSender {
  const url = `${twilio.apiUrl}/2010-04-01/Accounts/${twilio.accountSid}/Messages.json`;
  const authorization = `Basic ${Buffer.from(`${twilio.accountSid}:${twilio.authToken}`).toString('base64')}`;
  const sender: Record<string, string> = twilio.messagingServiceId.startsWith('MG')
    ? { MessagingServiceSid: twilio.messagingServiceId }
    : { From: twilio.messagingServiceId };
  return {
    async send(to, text) {
      const res = await fetch(url, {
        method: 'POST',
        headers: { authorization, 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: new URLSearchParams({ To: to, Body: text, ...sender }),
        signal: AbortSignal.timeout(SEND_TIMEOUT_MS),
      });
      const answer = (await res.json().catch(() => ({}))) as { sid?: string; code?: number; message?: string };
      if (!res.ok) {
        logger.error('sms refused by twilio', { status: res.status, code: answer.code, message: answer.message });
        throw new Error(`Twilio answered ${res.status}`);
      }
      logger.info('sms sent', { provider: 'twilio', sid: answer.sid });
    },
  };
}
