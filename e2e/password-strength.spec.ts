// SPEC §5: the password forms show a four-segment strength bar, one segment per rule satisfied
// (8 characters, an uppercase letter, a digit, a special character), live as the user types, read
// out as a meter that names what is missing. Without JavaScript the rules are written out.
import { expect, test } from './support/test.ts';
import type { Locator } from '@playwright/test';
import { openProfileMenu, storageState, tabletPage } from './support/fixtures.ts';

test.use({ storageState: storageState('commercial') });

async function expectStrength(meter: Locator, satisfied: number, valueText: string) {
  await expect(meter).toHaveAttribute('aria-valuenow', String(satisfied));
  await expect(meter).toHaveAttribute('aria-valuetext', valueText);
  await expect(meter.locator('[data-segment][data-on]')).toHaveCount(satisfied);
}

test('the update-password dialog fills one segment per rule as the user types', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto('/gearboxes');
  await openProfileMenu(page);
  await page.getByRole('button', { name: 'Modifier', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: 'Modifier le mot de passe' });
  const meter = dialog.getByRole('meter', { name: 'Robustesse du mot de passe' });
  await expect(meter).toBeVisible();
  await expect(meter).toHaveAttribute('aria-valuemax', '4');
  await expectStrength(
    meter,
    0,
    'Règles respectées : 0 sur 4. Il manque : minimum 8 caractères, au moins une majuscule, au moins un chiffre, au moins un caractère spécial',
  );
  const field = dialog.getByLabel('Nouveau mot de passe');
  await field.pressSequentially('abcdefgh');
  await expectStrength(meter, 1, 'Règles respectées : 1 sur 4. Il manque : au moins une majuscule, au moins un chiffre, au moins un caractère spécial');
  await field.pressSequentially('A1');
  await expectStrength(meter, 3, 'Règles respectées : 3 sur 4. Il manque : au moins un caractère spécial');
  // Each rule written out says whether it is met.
  await expect(dialog.getByRole('listitem').filter({ hasText: 'Au moins un chiffre' })).toHaveAttribute('data-met', '');
  await expect(dialog.getByRole('listitem').filter({ hasText: 'Au moins un caractère spécial' })).not.toHaveAttribute('data-met', '');
  await field.pressSequentially('!');
  await expectStrength(meter, 4, 'Règles respectées : 4 sur 4. Toutes les règles sont respectées');
  await dialog.screenshot({ path: test.info().outputPath('strength-dialog-1280.png') });
  await field.fill('');
  await expectStrength(
    meter,
    0,
    'Règles respectées : 0 sur 4. Il manque : minimum 8 caractères, au moins une majuscule, au moins un chiffre, au moins un caractère spécial',
  );
});

test('the password dialog takes the place of the profile menu, and gives focus back to the menu button', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto('/gearboxes');
  await openProfileMenu(page);
  const menu = page.getByRole('group', { name: 'Menu du profil' });
  await page.getByRole('button', { name: 'Modifier', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: 'Modifier le mot de passe' });
  await expect(dialog).toBeVisible();
  // The menu is closed behind the dialog (decision 045), and what the user types goes to the dialog.
  await expect(menu).toBeHidden();
  await expect(dialog.getByLabel('Mot de passe actuel')).toBeFocused();
  await page.screenshot({ path: test.info().outputPath('password-dialog-alone-1280.png') });
  // Closed by Escape, the dialog gives focus back to the button that opens the menu.
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
  await expect(menu).toBeHidden();
  await expect(page.getByRole('button', { name: /Menu du profil/ })).toBeFocused();
  // By a click outside too.
  await openProfileMenu(page);
  await page.getByRole('button', { name: 'Modifier', exact: true }).click();
  await expect(dialog).toBeVisible();
  await page.mouse.click(5, 790);
  await expect(dialog).toBeHidden();
  await expect(page.getByRole('button', { name: /Menu du profil/ })).toBeFocused();
});

test('the set-password page has the bar too, on a touch tablet', async ({ browser }) => {
  const page = await tabletPage(browser, 'commercial');
  await page.goto('/set-password');
  const meter = page.getByRole('meter', { name: 'Robustesse du mot de passe' });
  const field = page.getByLabel('Mot de passe (obligatoire)', { exact: true });
  await field.fill('Atelier-2026');
  await expectStrength(meter, 4, 'Règles respectées : 4 sur 4. Toutes les règles sont respectées');
  await field.fill('atelier');
  await expectStrength(
    meter,
    0,
    'Règles respectées : 0 sur 4. Il manque : minimum 8 caractères, au moins une majuscule, au moins un chiffre, au moins un caractère spécial',
  );
  await field.fill('atelier-2');
  await expectStrength(meter, 3, 'Règles respectées : 3 sur 4. Il manque : au moins une majuscule');
  await page.screenshot({ path: test.info().outputPath('strength-set-password-768-touch.png') });
  await page.context().close();
});

test('without JavaScript, the rules are written out and no empty bar shows', async ({ browser }) => {
  const context = await browser.newContext({ storageState: storageState('commercial'), javaScriptEnabled: false });
  const page = await context.newPage();
  await page.goto('/set-password');
  for (const rule of ['Minimum 8 caractères', 'Au moins une majuscule', 'Au moins un chiffre', 'Au moins un caractère spécial']) {
    await expect(page.getByRole('main').getByRole('listitem').filter({ hasText: rule })).toBeVisible();
  }
  await expect(page.getByRole('meter')).toHaveCount(0);
  await context.close();
});
