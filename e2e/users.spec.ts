// SPEC §2.9 and §9: the users screen of an admin, live across browsers.
import AxeBuilder from '@axe-core/playwright';
import { allowBrowserErrors, expect, test } from './support/test.ts';
import { refusedPost, storageState, touchTablet } from './support/fixtures.ts';

test.use({ storageState: storageState('app_admin') });

const table = (page: import('@playwright/test').Page) => page.getByRole('table');

test('searches by name or e-mail, pages by 15, and keeps both in the URL', async ({ page }) => {
  // Each row is headed by the user's name, then their e-mail.
  await page.goto('/users');
  await expect(page.getByText('29 utilisateurs')).toBeVisible();
  await expect(table(page).getByRole('row')).toHaveCount(16);
  await expect(page.getByText('Page 1 sur 2')).toBeVisible();
  await page.getByRole('link', { name: 'Page suivante' }).click();
  await expect(page).toHaveURL(/\/users\?page=2$/);
  await expect(table(page).getByRole('row')).toHaveCount(15);

  await page.getByRole('searchbox', { name: 'Rechercher un utilisateur' }).fill('MOREAU');
  // Debounced: the list and the URL follow half a second later, back on page 1.
  await expect(page).toHaveURL(/\/users\?recherche=MOREAU$/);
  await expect(table(page).getByRole('row')).toHaveCount(2);
  await expect(table(page).getByRole('rowheader')).toHaveText(['Julien Moreau diagnostic@demo.local']);

  await page.getByRole('searchbox', { name: 'Rechercher un utilisateur' }).fill('demo.local');
  await expect(page.getByText('29 utilisateurs')).toBeVisible();

  // A bookmarked search renders on the server.
  await page.goto('/users?recherche=garcia');
  await expect(table(page).getByRole('rowheader')).toHaveText(['Léa Garcia lea.garcia@demo.local']);
});

test.describe('without JavaScript', () => {
  test.use({ javaScriptEnabled: false });
  test('the search form and the pages work', async ({ page }) => {
    await page.goto('/users');
    await page.getByRole('searchbox', { name: 'Rechercher un utilisateur' }).fill('benali');
    await page.getByRole('button', { name: 'Rechercher' }).click();
    await expect(page).toHaveURL(/\/users\?recherche=benali$/);
    await expect(table(page).getByRole('rowheader')).toHaveText(['Karim Benali mecanicien@demo.local']);
  });

  test('adds a colleague, changes the role, disables and deletes, each a form posted to the page', async ({ page }) => {
    await page.goto('/users?recherche=sans-js');
    await page.getByRole('link', { name: 'Ajouter un utilisateur' }).click();
    await expect(page).toHaveURL(/\/users\?recherche=sans-js&ajouter=$/);
    const form = page.getByRole('region', { name: 'Nouvel utilisateur' });
    await form.getByLabel('Nom').fill('Paul Sans-JS');
    await form.getByLabel('E-mail').fill('pas-une-adresse');
    // Refused: back at the list's address (303 → GET, 200), what was typed stays, the field says why.
    const posts = await refusedPost(page, form.getByRole('button', { name: 'Ajouter' }));
    await expect(page).toHaveURL(/\/users\?recherche=sans-js$/);
    await expect(form.getByLabel('E-mail')).toHaveAccessibleDescription('Adresse e-mail invalide');
    await expect(form.getByLabel('Nom')).toHaveValue('Paul Sans-JS');
    // A reload reads the list again, what was typed still there; it does not post again.
    await page.reload();
    expect(posts).toHaveLength(1);
    await expect(form.getByLabel('Nom')).toHaveValue('Paul Sans-JS');
    await form.getByLabel('E-mail').fill('paul.sans-js@demo.local');
    await form.getByRole('button', { name: 'Ajouter' }).click();
    await expect(page.getByRole('status').filter({ hasText: 'Utilisateur ajouté' })).toBeVisible();
    await expect(table(page).getByRole('rowheader')).toHaveText(['Paul Sans-JS paul.sans-js@demo.local']);

    await page.getByLabel('Rôle de Paul Sans-JS').selectOption({ label: 'Diagnostiqueur' });
    await page.getByRole('button', { name: 'Changer : Paul Sans-JS' }).click();
    await expect(page.getByRole('status').filter({ hasText: 'Utilisateur mis à jour' })).toBeVisible();
    await expect(page.getByLabel('Rôle de Paul Sans-JS')).toHaveValue('diagnostician');
    // The row's actions are in its menu, a popover that opens without JavaScript.
    await page.getByRole('button', { name: 'Actions : Paul Sans-JS' }).click();
    await page.getByRole('button', { name: 'Désactiver : Paul Sans-JS' }).click();
    await page.getByRole('button', { name: 'Actions : Paul Sans-JS' }).click();
    await expect(page.getByRole('button', { name: 'Réactiver : Paul Sans-JS' })).toBeVisible();

    await page.getByRole('link', { name: 'Supprimer : Paul Sans-JS' }).click();
    await page.getByRole('button', { name: 'Supprimer définitivement' }).click();
    await expect(page.getByRole('status').filter({ hasText: 'Utilisateur supprimé' })).toBeVisible();
    await expect(page.getByText('Aucun utilisateur ne correspond à cette recherche.')).toBeVisible();
  });
});

test('an admin adds a user in one browser; the other shows it without reloading', async ({ browser, page }) => {
  const other = await browser.newContext({ storageState: storageState('app_admin') });
  const watcher = await other.newPage();
  await watcher.goto('/users?recherche=atelier-demo');
  await expect(watcher.getByText('Aucun utilisateur ne correspond à cette recherche.')).toBeVisible();

  await page.goto('/users');
  await page.getByRole('button', { name: 'Ajouter un utilisateur' }).click();
  const dialog = page.getByRole('dialog', { name: 'Nouvel utilisateur' });
  await dialog.getByRole('button', { name: 'Ajouter' }).click();
  await expect(dialog.getByText('Champ obligatoire')).toHaveCount(2);
  await dialog.getByLabel('Nom').fill('Gaëlle Nouvelle');
  await dialog.getByLabel('E-mail professionnel').fill('admin@demo.local');
  await dialog.getByLabel('Rôle').selectOption('commercial');
  await dialog.getByRole('button', { name: 'Ajouter' }).click();
  await expect(dialog.getByText('Email non disponible')).toBeVisible();
  await dialog.getByLabel('E-mail professionnel').fill('gaelle@atelier-demo.fr');
  await dialog.getByRole('button', { name: 'Ajouter' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Utilisateur ajouté' })).toBeVisible();

  const row = watcher.getByRole('row', { name: /Gaëlle Nouvelle/ });
  await expect(row).toBeVisible();
  await expect(row.getByText('E-mail non vérifié')).toBeVisible();
  await expect(row.getByRole('combobox')).toHaveValue('commercial');

  // Role and status changes reach the other browser too.
  await page.goto('/users?recherche=gaelle');
  // Until the island runs, a role is changed with its "Changer" button (a form post); then at once.
  await expect(page.getByRole('button', { name: 'Changer : Gaëlle Nouvelle' })).toHaveCount(0);
  await page.getByRole('combobox', { name: 'Rôle de Gaëlle Nouvelle' }).selectOption('diagnostician');
  await expect(page.getByRole('status').filter({ hasText: 'Utilisateur mis à jour' })).toBeVisible();
  await expect(row.getByRole('combobox')).toHaveValue('diagnostician');
  await page.getByRole('button', { name: 'Actions : Gaëlle Nouvelle' }).click();
  await page.getByRole('button', { name: 'Désactiver : Gaëlle Nouvelle' }).click();
  // The menu closes as its action runs.
  await expect(page.getByRole('button', { name: 'Réactiver : Gaëlle Nouvelle' })).toBeHidden();
  await expect(row.getByText('Désactivé')).toBeVisible();

  await page.getByRole('button', { name: 'Actions : Gaëlle Nouvelle' }).click();
  await page.getByRole('button', { name: 'Supprimer : Gaëlle Nouvelle' }).click();
  const confirm = page.getByRole('alertdialog', { name: "Supprimer l'utilisateur" });
  await expect(confirm.getByText('Cette action est irréversible.')).toBeVisible();
  await confirm.getByRole('button', { name: 'Supprimer définitivement' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Utilisateur supprimé' })).toBeVisible();
  await expect(watcher.getByText('Aucun utilisateur ne correspond à cette recherche.')).toBeVisible();
  await other.close();
});

test('the dialogs, fetched as they open, take the focus, keep it, and give it back on Escape', async ({ page }) => {
  await page.goto('/users');
  const add = page.getByRole('button', { name: 'Ajouter un utilisateur' });
  await add.click();
  const dialog = page.getByRole('dialog', { name: 'Nouvel utilisateur' });
  await expect(dialog.getByLabel('Nom')).toBeVisible();
  await page.keyboard.press('Tab');
  await expect(dialog.getByLabel('Nom')).toBeFocused();
  await dialog.getByRole('button', { name: 'Ajouter' }).focus();
  await page.keyboard.press('Tab');
  await expect(dialog.getByLabel('Nom')).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(dialog).toHaveCount(0);
  await expect(add).toBeFocused();

  // Deleting from a row's menu: the focus comes back to the menu's button, the menu closed.
  const actions = page.getByRole('button', { name: 'Actions : Alexandre Chevalier' });
  await actions.click();
  await page.getByRole('button', { name: 'Supprimer : Alexandre Chevalier' }).click();
  const confirm = page.getByRole('alertdialog', { name: "Supprimer l'utilisateur" });
  await expect(confirm.getByRole('button', { name: 'Annuler' })).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(confirm).toHaveCount(0);
  await expect(actions).toBeFocused();
  await expect(page.getByRole('group', { name: 'Actions : Alexandre Chevalier' })).toBeHidden();
});

test('resends the e-mail of an account that has no password yet', async ({ page }) => {
  await page.goto('/users?recherche=chloe');
  await page.getByRole('button', { name: 'Actions : Chloé Faure' }).click();
  await page.getByRole('button', { name: "Renvoyer l'e-mail : Chloé Faure" }).click();
  await expect(page.getByRole('status').filter({ hasText: 'E-mail envoyé' })).toBeVisible();
});

test('a change made while the network is lost says so, and changes nothing', async ({ page, context }) => {
  await page.goto('/users?recherche=hugo');
  // The island hydrated (Astro drops `ssr` then): before, a role is changed by its form's button.
  await expect(page.locator('astro-island[ssr]')).toHaveCount(0);
  const role = page.getByRole('combobox', { name: 'Rôle de Hugo Boyer' });
  const held = await role.inputValue();
  allowBrowserErrors(/ERR_INTERNET_DISCONNECTED/);
  await context.setOffline(true);
  await role.selectOption(held === 'commercial' ? 'mechanic' : 'commercial');
  // Not «Une erreur est survenue»: the fix is the Wi-Fi, not the administrator.
  await expect(page.locator('[data-toast]').filter({ hasText: 'Le serveur ne répond pas' })).toContainText(
    'Le serveur ne répond pas : vérifiez la connexion réseau, puis réessayez.',
  );
  await context.setOffline(false);
  await page.reload();
  await expect(role).toHaveValue(held);
});

test('the admin cannot change, disable or delete their own account here', async ({ page }) => {
  await page.goto('/users?recherche=admin%40demo');
  const row = table(page).getByRole('row', { name: /Claire Dubois/ });
  await expect(row.getByText('(vous)')).toBeVisible();
  await expect(row.getByRole('combobox')).toHaveCount(0);
  // Its menu holds only the link to the account's activity.
  await row.getByRole('button', { name: 'Actions : Claire Dubois' }).click();
  const menu = page.getByRole('group', { name: 'Actions : Claire Dubois' });
  await expect(menu.getByRole('link', { name: 'Activité de Claire Dubois' })).toBeVisible();
  await expect(menu.getByRole('button')).toHaveCount(0);
});

test('the users screen passes an axe scan with no serious violation', async ({ page }) => {
  await page.goto('/users');
  await expect(page.getByText('29 utilisateurs')).toBeVisible();
  const results = await new AxeBuilder({ page }).analyze();
  expect(results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')).toEqual([]);
});

test.describe("at a tablet's width", () => {
  test.use(touchTablet());

  test('a toast is one line high and lets «Ajouter un utilisateur» be tapped under it', async ({ page }) => {
    await page.goto('/users?recherche=boyer');
    // The island hydrated (Astro drops `ssr` then): a role chosen before would not be saved.
    await expect(page.locator('astro-island[ssr]')).toHaveCount(0);
    const role = page.getByRole('combobox', { name: 'Rôle de Hugo Boyer' });
    // Another role than the one held (an earlier test of this file may have changed it), then back.
    const held = await role.inputValue();
    await role.selectOption(held === 'commercial' ? 'mechanic' : 'commercial');
    const toast = page.locator('[data-toast]').filter({ hasText: 'Utilisateur mis à jour' });
    await expect(toast).toBeVisible();
    // One line of text, the 44 px close button in its corner: no empty lower half (decision 046).
    expect((await toast.boundingBox())!.height).toBeLessThanOrEqual(48);
    // The toast hangs over the left end of the title row's action: a tap there reaches the action.
    const add = page.getByRole('button', { name: 'Ajouter un utilisateur' });
    const [toastBox, addBox] = [(await toast.boundingBox())!, (await add.boundingBox())!];
    expect(toastBox.x + toastBox.width).toBeGreaterThan(addBox.x + 8);
    await add.tap({ position: { x: 8, y: addBox.height / 2 } });
    await expect(page.getByRole('dialog', { name: 'Nouvel utilisateur' }).getByLabel('Nom')).toBeVisible();
    await page.keyboard.press('Escape');
    await role.selectOption(held);
    await expect(role).toHaveValue(held);
  });
});
