// A minimal French page for refusals raised before any layout renders (middleware).
const escapeHtml = (s: string) => s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);

/** `retryAfter`: seconds after which the browser loads the page again by itself. */
export function renderMessagePage(input: { status: number; title: string; text: string; retryAfter?: number }): Response {
  const refresh = input.retryAfter ? `<meta http-equiv="refresh" content="${input.retryAfter}">` : '';
  const html = `<!doctype html><html lang="fr"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">${refresh}<title>${escapeHtml(input.title)} · Atelier BVA</title></head><body style="font-family:system-ui,sans-serif;max-width:40rem;margin:4rem auto;padding:0 1rem;color:#0f172a"><h1>${escapeHtml(input.title)}</h1><p>${escapeHtml(input.text)}</p><p><a href="/repair-orders" style="color:#1d4ed8">Retour à l'application</a></p></body></html>`;
  const headers: Record<string, string> = { 'Content-Type': 'text/html; charset=utf-8' };
  if (input.retryAfter) headers['Retry-After'] = String(input.retryAfter);
  return new Response(html, { status: input.status, headers });
}
