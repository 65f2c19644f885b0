// The workshop's clock (issue 28, item 2; decision 038): with the server itself in Pacific/Auckland,
// the real app still writes Paris times everywhere a person reads one: the procedure tab, the print
// page, the PDF, the activity CSV and an e-mail. The instants straddle a change of hour: winter
// (UTC+1 in Paris, UTC+13 in Auckland) and summer (UTC+2 in Paris, UTC+12 in Auckland).
process.env.TZ = 'Pacific/Auckland';

import { and, eq } from 'drizzle-orm';
import { extractText, getDocumentProxy } from 'unpdf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEvents, orderCheckpoints, orderEvents, repairOrders, tickets, users } from '#server/db/schema/index.ts';
import { renderMail } from '#server/auth/templates.ts';
import { browser, htmlText } from './support/browser.ts';
import { decodeMail, postJson, startTestApp, type TestApp } from './support/app.ts';
import { demoEmails } from './kit/index.ts';

// 14:50 in Paris both times; 02:50 the next day and 00:50 the next day in Auckland.
const WINTER = new Date('2026-01-15T13:50:00Z');
const SUMMER = new Date('2026-07-15T12:50:00Z');
// Just after the spring change in Paris (02:00 → 03:00 at 01:00 UTC): 03:30.
const SPRING = new Date('2026-03-29T01:30:00Z');

/** What a person in Paris reads, by an independent formatter (not the application's). */
const paris = (at: Date) => {
  const p = Object.fromEntries(
    new Intl.DateTimeFormat('en-GB', {
      timeZone: 'Europe/Paris',
      day: '2-digit',
      month: '2-digit',
      year: 'numeric',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    })
      .formatToParts(at)
      .map((part) => [part.type, part.value]),
  );
  return { date: `${p.day}/${p.month}/${p.year}`, time: `${p.hour}:${p.minute}` };
};

describe("the workshop's clock with the server in Pacific/Auckland", () => {
  let t: TestApp;
  let mechanic: ReturnType<typeof browser>;
  let order: { id: string; number: string };

  beforeAll(async () => {
    t = await startTestApp('pglite', { pages: true });
    mechanic = browser(t.url);
    await mechanic.signIn(demoEmails.mechanic);
    // A closed demo order with its closing recorded: closed in summer, its checkpoints answered in winter.
    const db = t.database.db;
    const [closed] = await db
      .select({ id: repairOrders.id, number: repairOrders.number })
      .from(repairOrders)
      .innerJoin(orderEvents, and(eq(orderEvents.orderId, repairOrders.id), eq(orderEvents.kind, 'closed')))
      .where(eq(repairOrders.status, 'CLOSED'))
      .limit(1);
    order = closed!;
    await db.update(orderEvents).set({ at: SUMMER }).where(eq(orderEvents.orderId, order.id));
    await db.update(orderCheckpoints).set({ answeredAt: WINTER }).where(eq(orderCheckpoints.orderId, order.id));
    const ref = { kind: 'repair_order', id: order.id, label: order.number };
    await db.insert(auditEvents).values({
      at: SPRING,
      action: 'closed',
      entityKind: ref.kind,
      entityId: ref.id,
      entityLabel: ref.label,
      parentKind: ref.kind,
      parentId: ref.id,
      parentLabel: ref.label,
    });
  });
  afterAll(() => t?.close());

  it("runs in a process whose own clock is Auckland's", () => {
    expect(WINTER.getHours()).toBe(2);
    expect(SUMMER.getHours()).toBe(0);
  });

  it('shows the closing and the checkpoints at their Paris time on the procedure tab', async () => {
    const res = await mechanic.request(`/repair-order/${order.id}?onglet=procedure`);
    expect(res.status).toBe(200);
    const html = htmlText(await res.text());
    expect(html).toContain('15/07/2026 14:50 · Clôture');
    expect(html).toContain('Enregistré le 15/01 à 14:50 par');
    // The island reads the same zone in the browser.
    expect(html).toContain('data-time-zone="Europe/Paris"');
    expect(html).not.toMatch(/(00|02):50/);
  });

  it('prints the same Paris times, and the edition time, on the print page and in the PDF', async () => {
    const before = paris(new Date());
    const page = htmlText(await (await mechanic.request(`/repair-order/${order.id}/report`)).text());
    const after = paris(new Date());
    const pdf = await mechanic.request(`/repair-order/${order.id}/report.pdf`);
    expect(pdf.headers.get('content-type')).toBe('application/pdf');
    const { text } = await extractText(await getDocumentProxy(new Uint8Array(await pdf.arrayBuffer())), { mergePages: true });
    const pdfText = text.replace(/\s+/g, ' ');
    for (const doc of [page, pdfText]) {
      expect(doc).toMatch(/Clôturé par .+ le 15\/07\/2026 14:50/);
      expect(doc).toContain('15/01/2026 14:50');
      expect(doc).not.toContain('16/07/2026 00:50');
      expect(doc).not.toContain('16/01/2026 02:50');
      const edited = /Édité le (\d{2}\/\d{2}\/\d{4}) à (\d{2}:\d{2})/.exec(doc)?.slice(1, 3).join(' ');
      expect([`${before.date} ${before.time}`, `${after.date} ${after.time}`]).toContain(edited);
    }
  });

  it('exports the activity in Paris time, across the spring change', async () => {
    const res = await mechanic.request(`/repair-order/${order.id}/activity.csv`);
    expect(res.status).toBe(200);
    const csv = await res.text();
    expect(csv).toContain(`29/03/2026 03:30:00;`);
    expect(res.headers.get('content-disposition')).toContain(`-${paris(new Date()).date.split('/').reverse().join('-')}.csv`);
  });

  it('mails the end of a link in Paris time', async () => {
    await postJson(`${t.url}/api/auth/user/password/reset`, { email: demoEmails.diagnostician });
    const mail = decodeMail((await t.outbox()).at(-1)!);
    const [ticket] = await t.database.db
      .select({ expiresAt: tickets.expiresAt })
      .from(tickets)
      .innerJoin(users, eq(users.id, tickets.userId))
      .where(and(eq(users.email, demoEmails.diagnostician), eq(tickets.type, 'passwordReset')));
    const end = paris(ticket!.expiresAt);
    expect(mail).toContain(`Valable jusqu'au ${end.date} à ${end.time}.`);
  });

  it("writes an e-mail's times in Paris time in winter and in summer", () => {
    const winter = renderMail('passwordReset', { displayName: 'Julie', link: 'http://atelier.test/x', expiresAt: WINTER });
    const summer = renderMail('signinOtp', { displayName: 'Julie', code: '123456', expiresAt: SUMMER });
    expect(winter.text).toContain("Valable jusqu'au 15/01/2026 à 14:50.");
    expect(winter.html).toContain('Valable jusqu&#39;au 15/01/2026 à 14:50.');
    expect(summer.text).toContain("Valable jusqu'au 15/07/2026 à 14:50.");
  });
});
