// Page weight budgets (issue 17): the JavaScript and CSS a browser downloads for each main screen
// of each role, gzip-compressed, are bytes the build decides, not times: a page over its budget
// fails `npm test`. Lower a budget when a change makes a page lighter; never raise one to pass.
// (CSS went from 6.1 to 6.3 KiB once, with decision 023: the menus and toasts became CSS, and
// the 1.2 KiB script every page loaded is gone; then to 7.0 KiB in issue 28, 6,486 → 7,154 B: the
// strength bar's rules (decision 042), the lists' priority columns as container queries (decision
// 040), unsent answers, ignored filters and toasts under the bar. 0.6 KiB of script came back with
// SPEC §5's strength bar, decision 042.)
import { gzipSync } from 'node:zlib';
import { expect, test } from './support/test.ts';
import type { Page } from '@playwright/test';
import { mainScreens, openScreen, storageState, type RoleName } from './support/fixtures.ts';

const KiB = 1024;
/**
 * One script on every signed-in page, the strength bar of the profile menu's password dialog
 * (SPEC §5, decision 042: 0.6 KiB, cached once; 0.7 KiB with decision 064, whose dialog says
 * «Champ obligatoire» itself and whose bar still stops a confirmation that differs: 549 → 607 B
 * gzipped; 0.6 KiB again with decision 071, the dialog's own inline script saying that
 * confirmation under its field: the bar and its rules, 665 → 605 B as this test weighs them);
 * CSS as the comment above says; nothing else (decision 023). The screens listed below hydrate
 * an island.
 */
const SHELL_JS = 0.6 * KiB;
/**
 * The strength bar's module, the inline script that asks before a changed form is left (decision
 * 039) and the inline one that closes the profile menu as the password dialog opens (decision
 * 045): the inline ones download nothing.
 */
const SHELL_SCRIPTS = 3;
const CSS = 7 * KiB;
const NO_ISLAND = { js: SHELL_JS, css: CSS };
const budgets: Record<string, { js: number; css: number }> = {
  // 81 → 84 KiB in issue 28: answers kept and sent again after a dead spot (decision 039), the
  // workshop's clock (038), the strength bar's script (042): 85,444 B. 84 → 85 KiB in its second
  // pass: what is typed survives a save's reply, an answer overtaken by a colleague stays on
  // screen, the tab follows a closing done elsewhere (a second subscription): 86,041 B.
  'ORDER?onglet=procedure': { js: 85 * KiB, css: CSS },
  // 85 → 86 KiB in issue 28: the strength bar's script and zod without eval (042): 87,337 B.
  '/users': { js: 86 * KiB, css: CSS },
  // An inline script (nothing downloaded) keeps the code list to the chosen model's codes.
  '/add-stock': { js: SHELL_JS, css: CSS },
};

/**
 * The leave guard (decision 039) is written into every signed-in page: its bytes, as the page
 * holds them (765 → 743 B when its first pass reused its own `formOf`; 884 B once it focuses the
 * field a refusal marked below the fold, walk13 F5; 923 B once a form filled again after a
 * reopening counts as unsaved, `data-unsaved`, walk17 F1; 1,905 B once what was typed is kept for
 * the tab and put back when Back or a reload brings the form again, walk31 F2; 2,196 B once a
 * post the server answered drops it and one the network lost keeps it for the form's next opening, rewalk R1;
 * 2,394 B once drafts are the user's and a lost post's last a quarter of an hour, the review; +42 B once an island's form may ask for
 * it, `data-guard`: the users screen's add dialog, walk31 F8).
 */
const GUARD = 2436;

test('the leave guard stays inline and small', async ({ browser }) => {
  const context = await browser.newContext({ storageState: storageState('diagnostician') });
  const page = await context.newPage();
  await page.goto('/repair-order');
  const guard = await page.evaluate(() => [...document.scripts].find((s) => !s.src && s.text.includes('beforeunload'))?.text ?? '');
  await context.close();
  const bytes = new TextEncoder().encode(guard).length;
  expect(bytes, 'the guard is on the page').toBeGreaterThan(0);
  expect(bytes, "the guard's bytes").toBeLessThanOrEqual(GUARD);
});

/** What the page downloads as it loads and hydrates, gzip-compressed (level 9, as the server would). */
async function weigh(page: Page, open: () => Promise<void>) {
  const sizes = { js: 0, css: 0 };
  const pending: Promise<void>[] = [];
  page.on('response', (response) => {
    const type = response.request().resourceType();
    if (type !== 'script' && type !== 'stylesheet') return;
    pending.push(
      response.body().then(
        (body) => void (sizes[type === 'script' ? 'js' : 'css'] += gzipSync(body, { level: 9 }).length),
        () => undefined,
      ),
    );
  });
  await open();
  await page.waitForLoadState('networkidle');
  await Promise.all(pending);
  return sizes;
}

for (const role of Object.keys(mainScreens) as RoleName[]) {
  test.describe(`${role}'s screens`, () => {
    for (const screen of mainScreens[role]) {
      test(`${screen} stays within its budget`, async ({ browser }) => {
        // The screen's URL first (an order or a model is found by its name), then the screen
        // alone in a fresh context, as a bookmark opens it: nothing cached, nothing counted twice.
        const finder = await browser.newContext({ storageState: storageState(role) });
        const first = await finder.newPage();
        await openScreen(first, screen);
        const url = first.url();
        await finder.close();
        const context = await browser.newContext({ storageState: storageState(role) });
        const page = await context.newPage();
        const sizes = await weigh(page, () => page.goto(url).then(() => undefined));
        // Inline scripts download nothing: counted apart, none on a page without an island
        // (its one script is the strength bar's).
        const scripts = await page.locator('script').count();
        await context.close();
        const budget = budgets[screen] ?? NO_ISLAND;
        if (!budgets[screen]) expect(scripts, `${screen}: script elements`).toBe(SHELL_SCRIPTS);
        expect(sizes.js, `${screen}: JavaScript bytes`).toBeLessThanOrEqual(budget.js);
        expect(sizes.css, `${screen}: CSS bytes`).toBeLessThanOrEqual(budget.css);
      });
    }
  });
}
