// French e-mails of the auth service, as text and HTML; their words are in fr.ts (`mail`).
import { formatDate, formatTime } from '#lib/format.ts';
import { t } from '#lib/i18n.ts';
import type { fr } from '#lib/i18n/fr.ts';

export type MailKind =
  | 'verifyEmail'
  | 'passwordReset'
  | 'setPassword'
  | 'emailConfirmChange'
  | 'emailChangeNotice'
  | 'wayInNotice'
  | 'signinPasswordless'
  | 'signinOtp';

/** A way into an account added or removed (decision 056): the sentence of `mail.wayInNotice.changes`. */
export type WayInChange = keyof typeof fr.mail.wayInNotice.changes;

/**
 * A mail carries a link to click, or (`signinOtp`) a code to type; `expiresAt`, when it stops working.
 * A notice of a way in (`wayInNotice`) says what changed (`change`, the key or token's `name`), when
 * (`at`, an ISO date shown on the workshop's clock) and from which address.
 */
export type MailVars =
  | { displayName: string; link: string; newEmail?: string; code?: never; expiresAt?: Date; wayIn?: WayInNotice }
  | { displayName: string; code: string; link?: never; newEmail?: never; expiresAt?: Date; wayIn?: never };
export type WayInNotice = { change: WayInChange; name: string; at: string; address: string };

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

export function renderMail(kind: MailKind, vars: MailVars) {
  const c = { subject: t(`mail.${kind}.subject`), action: t(`mail.${kind}.action`), outro: t(`mail.${kind}.outro`) };
  const way = vars.wayIn;
  const intro = way
    ? t('mail.wayInNotice.intro', {
        change: t(`mail.wayInNotice.changes.${way.change}`, { name: way.name }),
        date: formatDate(way.at),
        time: formatTime(way.at),
        address: way.address,
      })
    : t(`mail.${kind}.intro`, { newEmail: vars.newEmail ?? t('mail.anotherAddress') });
  const greeting = vars.displayName ? t('mail.greeting', { name: vars.displayName }) : t('mail.greetingNoName');
  const until = vars.expiresAt ? t('mail.validUntil', { date: formatDate(vars.expiresAt), time: formatTime(vars.expiresAt) }) : '';
  const text = `${greeting}\n\n${intro}\n\n${c.action} :\n${vars.code ?? vars.link}\n${until && `${until}\n`}\n${c.outro}\n`;
  const action =
    vars.code !== undefined
      ? `<p>${escapeHtml(c.action)} :</p>
<p style="font-size:28px;font-weight:bold;letter-spacing:6px;font-family:ui-monospace,monospace">${escapeHtml(vars.code)}</p>`
      : `<p><a href="${escapeHtml(vars.link)}" style="display:inline-block;padding:8px 16px;border-radius:8px;background:#1d4ed8;color:#fff;text-decoration:none">${escapeHtml(c.action)}</a></p>`;
  const html = `<!doctype html><html lang="fr"><body style="font-family:system-ui,sans-serif;color:#1f2937">
<p>${escapeHtml(greeting)}</p>
<p>${escapeHtml(intro)}</p>
${action}
${until && `<p>${escapeHtml(until)}</p>\n`}<p style="font-size:13px;color:#4b5563">${escapeHtml(c.outro)}</p>
</body></html>`;
  return { subject: c.subject, text, html };
}
