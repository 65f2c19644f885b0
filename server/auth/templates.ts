// French e-mails of the auth service, as text and HTML; their words are in fr.ts (`mail`).
import { formatDate, formatTime } from '#lib/format.ts';
import { t } from '#lib/i18n.ts';

export type MailKind = 'verifyEmail' | 'passwordReset' | 'setPassword' | 'emailConfirmChange' | 'emailChangeNotice' | 'signinPasswordless' | 'signinOtp';

/** A mail carries a link to click, or (`signinOtp`) a code to type; `expiresAt`, when it stops working. */
export type MailVars =
  | { displayName: string; link: string; newEmail?: string; code?: never; expiresAt?: Date }
  | { displayName: string; code: string; link?: never; newEmail?: never; expiresAt?: Date };

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

export function renderMail(kind: MailKind, vars: MailVars) {
  const c = { subject: t(`mail.${kind}.subject`), action: t(`mail.${kind}.action`), outro: t(`mail.${kind}.outro`) };
  const intro = t(`mail.${kind}.intro`, { newEmail: vars.newEmail ?? t('mail.anotherAddress') });
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
