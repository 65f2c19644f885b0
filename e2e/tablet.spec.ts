// Shop-floor tablets and gloves (issue 15): at 768×1024 and 1024×768 on a touch screen, every main
// screen of every role fits the width, keeps its bar to two rows at most, shows its dates as
// DD/MM/YYYY whatever the browser's language, and offers only targets of at least 44 × 44 px.
// Lists on a tablet (issue 28, decision 040): every list shows its key columns without sideways
// scrolling, its badges on one line, and the users screen is a compact list.
import AxeBuilder from '@axe-core/playwright';
import { expect, test } from './support/test.ts';
import type { Locator, Page } from '@playwright/test';
import { mainScreens as screens, openScreen, storageState, touchTablet, type RoleName } from './support/fixtures.ts';

/** Visible controls smaller than 44 × 44 px; a box or radio counts by the label that holds it. */
async function smallTargets(page: Page) {
  return page.evaluate(() => {
    const small: string[] = [];
    for (const el of document.querySelectorAll<HTMLElement>('a[href], button, summary, input:not([type=hidden]), select, textarea')) {
      const target =
        el instanceof HTMLInputElement && ['checkbox', 'radio'].includes(el.type) && el.parentElement instanceof HTMLLabelElement ? el.parentElement : el;
      const box = target.getBoundingClientRect();
      const style = getComputedStyle(target);
      // Not drawn: closed menus, the skip link until focused, collapsed parts.
      if (box.width <= 1 || box.height <= 1 || style.visibility === 'hidden' || target.closest('details:not([open]) > :not(summary)')) continue;
      if (box.width < 43.5 || box.height < 43.5)
        small.push(
          `${el.tagName.toLowerCase()} "${(el.textContent || el.getAttribute('aria-label') || (el as HTMLInputElement).name || '').trim().slice(0, 30)}" ${Math.round(box.width)}×${Math.round(box.height)}`,
        );
    }
    return small;
  });
}

/** Selects too narrow for the option they show ("Diagnostiqu…"). */
async function clippedSelects(page: Page) {
  return page.evaluate(() => {
    const canvas = document.createElement('canvas').getContext('2d')!;
    const clipped: string[] = [];
    for (const select of document.querySelectorAll('select')) {
      const box = select.getBoundingClientRect();
      if (box.width <= 1) continue;
      const style = getComputedStyle(select);
      canvas.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
      const text = select.selectedOptions[0]?.textContent ?? '';
      // The text, the padding on both sides and the arrow (about 20 px).
      const needed = canvas.measureText(text).width + parseFloat(style.paddingLeft) + parseFloat(style.paddingRight) + 20;
      if (needed > box.width) clipped.push(`"${text}" needs ${Math.round(needed)} px, has ${Math.round(box.width)}`);
    }
    return clipped;
  });
}

for (const [width, height] of [
  [768, 1024],
  [1024, 768],
] as const) {
  test.describe(`a ${width}×${height} touch screen`, () => {
    test.use({ viewport: { width, height }, hasTouch: true, isMobile: false, locale: 'en-US' });
    for (const role of Object.keys(screens) as RoleName[]) {
      test.describe(role, () => {
        test.use({ storageState: storageState(role) });
        test('fits, keeps the bar to two rows, and offers only 44-pixel targets', async ({ page }) => {
          test.slow();
          for (const screen of screens[role]) {
            await openScreen(page, screen);
            const report = await page.evaluate(() => ({
              width: document.documentElement.scrollWidth,
              bar: document.querySelector('header')?.getBoundingClientRect().height ?? 0,
            }));
            expect.soft(report.width, `${screen}: page width`).toBeLessThanOrEqual(width);
            // One row of 44-pixel targets with its padding is about 60 px; two rows, 120.
            expect.soft(report.bar, `${screen}: bar height`).toBeLessThanOrEqual(120);
            expect.soft(await smallTargets(page), `${screen}: targets under 44 px`).toEqual([]);
            expect.soft(await clippedSelects(page), `${screen}: selects that cut their text`).toEqual([]);
          }
        });
      });
    }
  });
}

test.describe('an English browser on a tablet', () => {
  test.use({ viewport: { width: 768, height: 1024 }, hasTouch: true, locale: 'en-US', storageState: storageState('diagnostician') });

  test('types and reads dates as DD/MM/YYYY, and the menus open and close without a mouse', async ({ page }) => {
    await openScreen(page, 'ORDER');
    await expect(page.getByLabel("Date d'ouverture")).toHaveValue('29/09/2026');
    await page.goto('/repair-orders');
    await page.getByLabel('Ouvert du').fill('1/10/2026');
    await page.getByLabel('au', { exact: true }).fill('31/10/2026');
    await page.getByRole('button', { name: 'Filtrer' }).click();
    await expect(page).toHaveURL(/du=1%2F10%2F2026/);
    await expect(page.getByLabel('Ouvert du')).toHaveValue('01/10/2026');
    const opened = await page.getByRole('table').locator('tbody tr td:nth-child(2)').allTextContents();
    expect(opened.length).toBeGreaterThan(0);
    for (const day of opened) expect(day).toMatch(/^\d{2}\/10\/2026$/);

    // The tabs of the bar are in a menu below 1024 px; Escape closes it.
    await page.getByText('Menu', { exact: true }).tap();
    const nav = page.getByRole('navigation', { name: 'Navigation principale' });
    await expect(nav.getByRole('link', { name: 'Informations techniques' })).toBeVisible();
    await page.keyboard.press('Escape');
    await expect(nav.getByRole('link', { name: 'Informations techniques' })).toBeHidden();
    await page.getByText('Menu', { exact: true }).tap();
    await nav.getByRole('link', { name: 'Informations techniques' }).tap();
    await expect(page).toHaveURL(/\/gearboxes$/);
  });

  test('the signed-in shell passes axe at this size, the profile menu named by what it shows', async ({ page }) => {
    await page.goto('/repair-orders');
    const results = await new AxeBuilder({ page }).analyze();
    expect(results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id)).toEqual([]);
    // Its accessible name starts with the name it shows (WCAG 2.5.3).
    await expect(page.locator('[popovertarget="profile-menu"]')).toHaveAccessibleName('Julien Moreau Menu du profil');
  });
});

/**
 * What keeps a list from being read on this screen: its box scrolls sideways, a key column (its
 * header and the first row's cell) is hidden or past the box's or the screen's right edge, or a
 * badge takes more than one line.
 */
async function listProblems(table: Locator, keys: string[]) {
  return table.evaluate((table: HTMLTableElement, keys) => {
    const problems: string[] = [];
    const box = table.parentElement!;
    if (box.scrollWidth > box.clientWidth) problems.push(`scrolls sideways: ${box.scrollWidth} px in ${box.clientWidth}`);
    const edge = Math.min(window.innerWidth, box.getBoundingClientRect().right) + 0.5;
    const headers = [...table.tHead!.rows[0].cells];
    const row = table.tBodies[0].rows[0];
    const drawn = (el: Element) => el.getBoundingClientRect().width > 0;
    for (const key of keys) {
      const header = headers.find((th) => drawn(th) && th.textContent!.trim().startsWith(key));
      if (!header) {
        problems.push(`${key}: no column shown`);
        continue;
      }
      for (const [what, el] of [
        ['header', header],
        ['first row', row.cells[header.cellIndex]],
      ] as const) {
        const r = el.getBoundingClientRect();
        if (r.right > edge) problems.push(`${key} (${what}): ${Math.round(r.left)}–${Math.round(r.right)} px, past the edge at ${Math.round(edge)}`);
      }
    }
    for (const badge of table.querySelectorAll<HTMLElement>('.badge, .rounded-full')) {
      const style = getComputedStyle(badge);
      const line = parseFloat(style.lineHeight) + parseFloat(style.paddingTop) + parseFloat(style.paddingBottom);
      if (badge.getBoundingClientRect().height > line + 1) problems.push(`badge "${badge.textContent}" on more than one line`);
    }
    return problems;
  }, keys);
}

const ORDER_KEYS = ["N° d'OR", "Date d'ouverture", 'Modèle de boîte', 'Statut'];
const ACTIVITY_KEYS = ['Date', 'Qui', 'Quoi'];

test.describe('lists on a tablet (issue 28)', () => {
  const NUMBER = `TAB-${Date.now().toString(36).toUpperCase()}`;
  let order = '';
  let diagnosticianActivity = '';

  test.beforeAll(async ({ browser }) => {
    // A day's activity on an order: created, then its vehicle and comment written.
    const context = await browser.newContext({ storageState: storageState('diagnostician') });
    const page = await context.newPage();
    await page.goto('/repair-order');
    await page.getByLabel("N° d'OR").fill(NUMBER);
    await page.getByLabel("Catégorie d'intervention").selectOption({ label: 'Véhicule complet' });
    await page.getByLabel('Modèle de boîte').selectOption({ label: 'ZF 8HP45' });
    await page.getByRole('button', { name: "Créer l'OR" }).click();
    await expect(page.getByRole('heading', { name: NUMBER })).toBeVisible();
    order = new URL(page.url()).pathname;
    await page.getByLabel('Marque', { exact: true }).fill('Volkswagen');
    await page.getByLabel('Modèle du véhicule').fill('Golf VII 2.0 TDI 150 DSG');
    // A comment with an address in it: one long word that must not widen the activity list.
    await page.getByLabel('Commentaire').fill('Patine en 3e à chaud ; voir https://www.zf.com/fr/service/bulletins/8HP45-TSB-2026-0412-adaptation');
    await page.getByRole('button', { name: 'Enregistrer' }).click();
    await expect(page.getByRole('status').filter({ hasText: 'OR mis à jour' })).toBeVisible();
    await context.close();
    const admin = await browser.newContext({ storageState: storageState('app_admin') });
    const users = await admin.newPage();
    await users.goto('/users?recherche=diagnostic%40demo');
    diagnosticianActivity = (await users.locator('main a[href$="/activity"]').first().getAttribute('href'))!;
    await admin.close();
  });

  const lists: { role: RoleName; path: () => string; table: string | null; keys: string[] }[] = [
    { role: 'mechanic', path: () => '/repair-orders', table: 'Ordres de réparation', keys: ORDER_KEYS },
    // A diagnostician has one more column: the deletion link.
    { role: 'diagnostician', path: () => '/repair-orders', table: 'Ordres de réparation', keys: ORDER_KEYS },
    {
      role: 'commercial',
      path: () => '/stock',
      table: 'Stock actuel',
      keys: ['Référence', 'Modèle', 'Code de la boîte', 'État', 'Emplacement', "Date d'entrée"],
    },
    {
      role: 'commercial',
      path: () => '/stock?onglet=historique',
      table: 'Historique du stock',
      keys: ['Référence', 'Modèle', 'Code de la boîte', 'État', 'Date de sortie'],
    },
    { role: 'commercial', path: () => '/stock?onglet=codes', table: 'Codes', keys: ['Modèle', 'Code Doctor', 'Codes boîte'] },
    { role: 'mechanic', path: () => '/gearboxes', table: null, keys: ['Type', 'Modèle', 'Constructeur', 'Années'] },
    { role: 'mechanic', path: () => `${order}/activity`, table: 'Activité', keys: ACTIVITY_KEYS },
    { role: 'app_admin', path: () => diagnosticianActivity, table: 'Activité', keys: ACTIVITY_KEYS },
  ];

  for (const [width, height] of [
    [768, 1024],
    [1024, 768],
  ] as const) {
    test.describe(`${width}×${height}`, () => {
      test.use(touchTablet(width, height));

      for (const role of ['mechanic', 'diagnostician', 'commercial', 'app_admin'] as const) {
        test.describe(role, () => {
          test.use({ storageState: storageState(role) });
          test('every list shows its key columns without scrolling sideways, and its badges on one line', async ({ page }) => {
            for (const list of lists.filter((l) => l.role === role)) {
              await page.goto(list.path());
              const table = list.table ? page.getByRole('table', { name: list.table }) : page.getByRole('table');
              await expect(table.getByRole('row').nth(1)).toBeVisible();
              expect.soft(await listProblems(table, list.keys), `${list.path()} at ${width} px`).toEqual([]);
            }
          });
        });
      }

      test.describe('diagnostician', () => {
        test.use({ storageState: storageState('diagnostician') });
        test("the order list's folded columns are named under the key column's header and shown in its cells", async ({ page }) => {
          await page.goto(`/repair-orders?recherche=${NUMBER}`);
          const table = page.getByRole('table', { name: 'Ordres de réparation' });
          const row = table.getByRole('row', { name: new RegExp(NUMBER) });
          // Below 1,024 px the constructor folds under the model, and its sort link with it.
          await expect(table.getByRole('columnheader', { name: 'Trier par Constructeur', exact: true })).toBeHidden();
          await expect(
            table.getByRole('columnheader', { name: /^Trier par Modèle de boîte/ }).getByRole('link', { name: 'Trier par Constructeur' }),
          ).toBeVisible();
          const portrait = width < 896;
          // Below 896 px the category folds under the number, the type under the model.
          await expect(table.getByRole('columnheader', { name: "Trier par Catégorie d'intervention", exact: true })).toBeVisible({ visible: !portrait });
          await expect(row.getByRole('rowheader')).toHaveAccessibleName(portrait ? `${NUMBER} Véhicule complet` : NUMBER);
          await expect(row.getByRole('cell', { name: /^ZF 8HP45/ })).toHaveAccessibleName(portrait ? /^ZF 8HP45 ZF\s*·\s*Automatique$/ : 'ZF 8HP45 ZF');
          await row.getByRole('link', { name: NUMBER, exact: true }).tap();
          await expect(page.getByRole('heading', { name: NUMBER })).toBeVisible();
        });
      });
    });
  }

  test.describe('the users screen, 768×1024', () => {
    test.use({ ...touchTablet(), storageState: storageState('app_admin') });

    test('is a compact list: fifteen rows under 1,400 px, one action menu a row, e-mails cut whole', async ({ page }) => {
      await page.goto('/users');
      const table = page.getByRole('table');
      await expect(table.getByRole('row')).toHaveCount(16);
      // Fifteen rows of one 44-px control (61 px with their padding and border: 915 px), and the
      // bar, title, search, count, header and pager above and below them (about 420 px).
      expect(await page.evaluate(() => document.documentElement.scrollHeight)).toBeLessThan(1400);
      expect(await listProblems(table, ['Nom', 'Statut', 'Rôle'])).toEqual([]);
      for (const row of (await table.getByRole('row').all()).slice(1)) {
        await expect(row.getByRole('button')).toHaveCount(1);
        await expect(row.getByRole('button')).toHaveAccessibleName(/^Actions : /);
        await expect(row.getByRole('link')).toHaveCount(0);
      }
      // Each address on one line, cut with an ellipsis if it must be, whole in its title.
      const emails = await table.locator('tbody th [title]').evaluateAll((spans) =>
        spans.map((span) => {
          const style = getComputedStyle(span);
          return {
            whole: span.getAttribute('title') === span.textContent,
            cut: style.textOverflow === 'ellipsis',
            lines: Math.round(span.getBoundingClientRect().height / parseFloat(style.lineHeight)),
          };
        }),
      );
      expect(emails).toHaveLength(15);
      expect(emails.filter((e) => !e.whole || !e.cut || e.lines !== 1)).toEqual([]);

      // A tap opens the row's menu: the whole address atop, then the actions.
      await page.getByRole('button', { name: 'Actions : Alexandre Chevalier' }).tap();
      const menu = page.getByRole('group', { name: 'Actions : Alexandre Chevalier' });
      await expect(menu.getByText('alexandre.chevalier@demo.local', { exact: true })).toBeVisible();
      await expect(menu.getByRole('link', { name: 'Activité de Alexandre Chevalier' })).toBeVisible();
      await expect(menu.getByRole('button', { name: 'Désactiver : Alexandre Chevalier' })).toBeVisible();
      await expect(menu.getByRole('button', { name: 'Supprimer : Alexandre Chevalier' })).toBeVisible();
      expect(await smallTargets(page)).toEqual([]);
      await page.keyboard.press('Escape');
      await expect(menu).toBeHidden();
    });
  });
});
