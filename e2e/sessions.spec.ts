// Issue 14: a session ends everywhere, within 15 s, when it should. Colleagues' accounts, so
// the four demo sessions the other specs share stay open.
import { allowBrowserErrors, expect, test } from './support/test.ts';
import { openProfileMenu, signIn, storageState } from './support/fixtures.ts';

test('signing out in one browser refuses the same session in another within 15 s', async ({ browser }) => {
  const first = await browser.newContext();
  const page = await first.newPage();
  await signIn(page, 'camille.girard@demo.local');
  // The second browser holds the same cookie (a second window, or a copied cookie).
  const second = await browser.newContext({ storageState: await first.storageState() });
  const other = await second.newPage();
  await other.goto('/stock');
  await expect(other.getByRole('heading', { name: 'Stock', exact: true })).toBeVisible();

  await openProfileMenu(page);
  await page.getByRole('button', { name: 'Se déconnecter', exact: true }).click();
  await expect(page).toHaveURL(/\/sign-in$/);
  const signedOutAt = Date.now();

  await other.goto('/stock');
  await expect(other).toHaveURL(/\/sign-in\?redirectTo=%2Fstock$/);
  expect(Date.now() - signedOutAt).toBeLessThan(15_000);
  await first.close();
  await second.close();
});

test('"sign out of every device" sends a live screen elsewhere back to the sign-in within 15 s', async ({ browser }) => {
  const first = await browser.newContext();
  const page = await first.newPage();
  await signIn(page, 'olivier.perrin@demo.local');
  const second = await browser.newContext();
  const other = await second.newPage();
  await signIn(other, 'olivier.perrin@demo.local');
  // The users screen keeps a live subscription open.
  await other.goto('/users');
  await expect(other.getByRole('table')).toBeVisible();

  await openProfileMenu(page);
  await page.getByRole('button', { name: 'Se déconnecter de tous les appareils' }).click();
  await expect(page).toHaveURL(/\/sign-in$/);
  await expect(page.getByRole('status').filter({ hasText: 'Vous êtes déconnecté de tous vos appareils' })).toBeVisible();
  // Nobody touches the other browser: its socket is closed, its token refresh refused (401), and it
  // goes to the sign-in page.
  allowBrowserErrors(/status of 401 .*\/api\/session\/token\)$/);
  await expect(other).toHaveURL(/\/sign-in/, { timeout: 15_000 });
  await first.close();
  await second.close();
});

test.describe('an admin', () => {
  test.use({ storageState: storageState('app_admin') });

  test('signs a colleague out of every device from the users screen', async ({ page, browser }) => {
    // A context of its own: not the admin's stored session.
    const colleague = await browser.newContext({ storageState: { cookies: [], origins: [] } });
    const theirs = await colleague.newPage();
    await signIn(theirs, 'aurelie.dupont@demo.local');

    await page.goto('/users?recherche=Aurélie');
    await page.getByRole('button', { name: 'Actions : Aurélie Dupont' }).click();
    await page.getByRole('button', { name: 'Déconnecter partout : Aurélie Dupont' }).click();
    await expect(page.getByRole('status').filter({ hasText: 'Toutes les sessions de Aurélie Dupont sont fermées' })).toBeVisible();

    await theirs.goto('/stock');
    await expect(theirs).toHaveURL(/\/sign-in/);
    await colleague.close();
  });
});
