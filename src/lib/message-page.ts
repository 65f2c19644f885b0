// A French page for refusals raised before any layout renders (middleware), and for the database
// away (decision 036): the app's look (its bar, canvas, card and colours, from global.css's
// tokens) without its stylesheet, which a failing request may not reach.
import { t } from '#lib/i18n.ts';

const escapeHtml = (s: string) => s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);

const STYLE = {
  body: "margin:0;min-height:100vh;background:#f4f6f9;color:#0f172a;font-family:system-ui,-apple-system,'Segoe UI',Roboto,'Helvetica Neue',Arial,sans-serif;line-height:1.5",
  header: 'background:#ffffff;border-bottom:1px solid #cbd5e1',
  bar: 'max-width:80rem;margin:0 auto;padding:12px 16px',
  brand: 'font-size:1.125rem;font-weight:700;color:#1e3a8a;text-decoration:none',
  main: 'max-width:40rem;margin:0 auto;padding:48px 16px',
  card: 'background:#ffffff;border:1px solid #cbd5e1;border-radius:8px;padding:24px',
  title: 'margin:0 0 8px;font-size:1.5rem',
  text: 'margin:0 0 24px;color:#475569',
  confirmed: 'margin:0 0 24px;padding:12px 16px;border-radius:8px;background:#ecfdf5;border:1px solid #a7f3d0;color:#065f46;font-weight:600',
  subtitle: 'margin:0 0 8px;font-size:1.125rem',
  actions: 'display:flex;flex-wrap:wrap;gap:16px;align-items:center',
  button:
    'display:inline-flex;align-items:center;min-height:48px;padding:0 24px;border-radius:8px;background:#1d4ed8;color:#ffffff;font-weight:600;text-decoration:none',
  link: 'color:#1d4ed8',
  /** A button that reads as a link (the form's way out): 48 px high for a tablet. */
  textButton:
    'display:inline-flex;align-items:center;min-height:48px;padding:0 8px;border:0;background:none;font:inherit;text-decoration:underline;cursor:pointer',
};

/**
 * A `refreshToken` landed without this browser's binding (decision 052): the account it would
 * open is named, and only a same-origin post of this form (sameOrigin in the middleware) opens it.
 * `done`: what the link has done already (an address confirmed, `linkLandings`), said first;
 * then there is nothing to cancel, and the way out only declines the session. The way out is the
 * form's second button (`decline=1`): declining ends the link, whose address stays in the history.
 */
export function renderContinuePage(input: {
  name: string;
  email: string | null;
  refreshToken: string;
  to: string;
  type: string;
  done: string | null;
}): Response {
  const hidden = (name: string, value: string) => `<input type="hidden" name="${name}" value="${escapeHtml(value)}">`;
  const question = t('landing.title', { name: input.name });
  const title = input.done ?? question;
  const account = input.email ? t('landing.account', { name: input.name, email: input.email }) : t('landing.accountNoEmail', { name: input.name });
  const confirmed =
    input.done && input.email
      ? `<p style="${STYLE.confirmed}">${escapeHtml(t('landing.addressConfirmed', { email: input.email }))}</p><h2 style="${STYLE.subtitle}">${escapeHtml(question)}</h2>`
      : '';
  const cancel = input.done ? t('landing.skipSession') : t('landing.cancel');
  const html = `<!doctype html><html lang="fr"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)} · Atelier BVA</title></head><body style="${STYLE.body}"><header style="${STYLE.header}"><div style="${STYLE.bar}"><span style="${STYLE.brand}">Atelier BVA</span></div></header><main id="contenu" style="${STYLE.main}"><section style="${STYLE.card}" aria-labelledby="message"><h1 id="message" style="${STYLE.title}">${escapeHtml(title)}</h1>${confirmed}<p style="${STYLE.text}">${escapeHtml(t('landing.notThisBrowser'))} ${escapeHtml(account)}</p><form method="post" action="/sign-in/continue" style="${STYLE.actions}">${hidden('refreshToken', input.refreshToken)}${hidden('to', input.to)}${hidden('type', input.type)}<button type="submit" style="${STYLE.button};border:0;font:inherit;font-weight:600;cursor:pointer">${escapeHtml(t('landing.submit', { name: input.name }))}</button><button type="submit" name="decline" value="1" style="${STYLE.link};${STYLE.textButton}">${escapeHtml(cancel)}</button></form></section></main></body></html>`;
  return new Response(html, { status: 200, headers: { 'Content-Type': 'text/html; charset=utf-8' } });
}

/** `retryAfter`: seconds after which the browser loads the page again by itself. */
export function renderMessagePage(input: { status: number; title: string; text: string; retryAfter?: number }): Response {
  const refresh = input.retryAfter ? `<meta http-equiv="refresh" content="${input.retryAfter}">` : '';
  const retry = input.retryAfter ? `<a href="" style="${STYLE.button}">${escapeHtml(t('errors.retryNow'))}</a>` : '';
  const html = `<!doctype html><html lang="fr"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">${refresh}<title>${escapeHtml(input.title)} · Atelier BVA</title></head><body style="${STYLE.body}"><header style="${STYLE.header}"><div style="${STYLE.bar}"><a href="/repair-orders" style="${STYLE.brand}">Atelier BVA</a></div></header><main id="contenu" style="${STYLE.main}"><section style="${STYLE.card}" aria-labelledby="message"><h1 id="message" style="${STYLE.title}">${escapeHtml(input.title)}</h1><p style="${STYLE.text}">${escapeHtml(input.text)}</p><p style="${STYLE.actions}">${retry}<a href="/repair-orders" style="${STYLE.link}">${escapeHtml(t('errors.backToApp'))}</a></p></section></main></body></html>`;
  const headers: Record<string, string> = { 'Content-Type': 'text/html; charset=utf-8' };
  if (input.retryAfter) headers['Retry-After'] = String(input.retryAfter);
  return new Response(html, { status: input.status, headers });
}
