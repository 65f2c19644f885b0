// Walk31 F11: the users screen when a change reaches the server but its reply is lost. The admin
// is told what happened to the account, never «Une erreur est survenue» over a user already gone.
// Walk31 F8: a new user half typed in the add dialog survives a reload, and leaving asks first.
import type { Page } from '@playwright/test';
import { allowBrowserErrors, expect, test } from './support/test.ts';
import { storageState } from './support/fixtures.ts';

test.use({ storageState: storageState('app_admin') });

/** A colleague added through the API, for this test alone. */
async function addUser(page: Page, displayName: string, email: string) {
  await page.goto('/users');
  const { accessToken } = await (await page.request.get('/api/session/token')).json();
  const answer = await page.request.post('/graphql', {
    headers: { authorization: `Bearer ${accessToken}` },
    data: { query: 'mutation($o: users_insert_input!) { insertUser(object: $o) { id } }', variables: { o: { displayName, email, defaultRole: 'mechanic' } } },
  });
  expect((await answer.json()).errors).toBeUndefined();
}

/** The accounts these tests add, removed again whatever happened: the other specs count 29 users. */
test.afterEach(async ({ page }) => {
  const api = async (query: string, variables: Record<string, unknown>) => {
    const { accessToken } = await (await page.request.get('/api/session/token')).json();
    return (await page.request.post('/graphql', { headers: { authorization: `Bearer ${accessToken}` }, data: { query, variables } })).json();
  };
  const found = await api('query($w: users_bool_exp) { users(where: $w) { id } }', { w: { email: { _ilike: '%@walk31.fr' } } });
  for (const { id } of found.data.users as { id: string }[]) await api('mutation($id: uuid!) { deleteUser(id: $id) { id } }', { id });
});

/** Every request naming `operation` reaches the server; its reply is lost on the way back. */
async function loseReplies(page: Page, operation: string) {
  await page.route('**/graphql', async (route) => {
    if (!route.request().postData()?.includes(operation)) return route.fallback();
    await route.fetch();
    await route.abort();
  });
}

const toasts = (page: Page) => page.locator('[data-toast]');

async function openDelete(page: Page, name: string) {
  await page.goto(`/users?recherche=${encodeURIComponent(name)}`);
  await expect(page.locator('astro-island[ssr]')).toHaveCount(0);
  await page.getByRole('button', { name: `Actions : ${name}` }).click();
  await page.getByRole('button', { name: `Supprimer : ${name}` }).click();
  const confirm = page.getByRole('alertdialog', { name: "Supprimer l'utilisateur" });
  await expect(confirm.getByText('Cette action est irréversible.')).toBeVisible();
  return confirm;
}

test('a deletion whose reply is lost says the account is deleted and closes the dialog', async ({ page }) => {
  allowBrowserErrors(/ERR_FAILED/);
  await addUser(page, 'Nadia Perdue', 'nadia.perdue@walk31.fr');
  const confirm = await openDelete(page, 'Nadia Perdue');
  await loseReplies(page, 'deleteUser');
  await confirm.getByRole('button', { name: 'Supprimer définitivement' }).click();
  await expect(toasts(page).filter({ hasText: 'Utilisateur supprimé' })).toBeVisible();
  await expect(confirm).toHaveCount(0);
  await expect(toasts(page).filter({ hasText: /Le serveur ne répond pas|Une erreur est survenue/ })).toHaveCount(0);
  await expect(page.getByText('Aucun utilisateur ne correspond à cette recherche.')).toBeVisible();
});

test('the retry of a deletion that did arrive says the account is deleted, not an error', async ({ page }) => {
  allowBrowserErrors(/ERR_FAILED/);
  await addUser(page, 'Noé Perdu', 'noe.perdu@walk31.fr');
  const confirm = await openDelete(page, 'Noé Perdu');
  // The reply lost, and the account cannot be read again either: nothing is known yet.
  await loseReplies(page, 'deleteUser');
  await loseReplies(page, 'UserNow');
  await confirm.getByRole('button', { name: 'Supprimer définitivement' }).click();
  await expect(toasts(page).filter({ hasText: 'Le serveur ne répond pas' })).toBeVisible();
  await expect(confirm.getByText('Cette action est irréversible.')).toBeVisible();
  // The network is fine again: the retry finds the account gone.
  await page.unrouteAll();
  await confirm.getByRole('button', { name: 'Supprimer définitivement' }).click();
  await expect(toasts(page).filter({ hasText: 'Utilisateur supprimé' })).toBeVisible();
  await expect(confirm).toHaveCount(0);
  await expect(toasts(page).filter({ hasText: 'Une erreur est survenue' })).toHaveCount(0);
});

test('a role change whose reply is lost says the user is updated once the new role is there', async ({ page }) => {
  allowBrowserErrors(/ERR_FAILED/);
  await addUser(page, 'Rémi Perdu', 'remi.perdu@walk31.fr');
  await page.goto('/users?recherche=remi.perdu');
  await expect(page.locator('astro-island[ssr]')).toHaveCount(0);
  await loseReplies(page, 'updateUser');
  const role = page.getByRole('combobox', { name: 'Rôle de Rémi Perdu' });
  await role.selectOption('commercial');
  await expect(toasts(page).filter({ hasText: 'Utilisateur mis à jour' })).toBeVisible();
  await expect(toasts(page).filter({ hasText: /Le serveur ne répond pas|Une erreur est survenue/ })).toHaveCount(0);
  await expect(role).toHaveValue('commercial');
  await page.unrouteAll();
  await page.reload();
  await expect(page.getByRole('combobox', { name: 'Rôle de Rémi Perdu' })).toHaveValue('commercial');
});

test('the add dialog comes back as typed after a reload, asks before leaving, and forgets it once cancelled or added', async ({ page }) => {
  const prompts: string[] = [];
  page.on('dialog', (dialog) => {
    prompts.push(dialog.type());
    void dialog.accept();
  });
  await page.goto('/users');
  await page.getByRole('button', { name: 'Ajouter un utilisateur' }).click();
  const dialog = page.getByRole('dialog', { name: 'Nouvel utilisateur' });
  await dialog.getByLabel('Nom').fill('Karim Bis');
  await dialog.getByLabel('E-mail professionnel').fill('mecanicien@demo.local');
  await dialog.getByLabel('Rôle').selectOption('commercial');
  await dialog.getByRole('button', { name: 'Ajouter' }).click();
  await expect(dialog.getByText('Email non disponible')).toBeVisible();

  // The reload asks first; accepted, the dialog opens again with what was typed.
  await page.reload();
  expect(prompts).toEqual(['beforeunload']);
  await expect(dialog.getByLabel('Nom')).toHaveValue('Karim Bis');
  await expect(dialog.getByLabel('E-mail professionnel')).toHaveValue('mecanicien@demo.local');
  await expect(dialog.getByLabel('Rôle')).toHaveValue('commercial');

  // Cancelled: nothing kept, nothing asked.
  await dialog.getByRole('button', { name: 'Annuler' }).click();
  await expect(dialog).toHaveCount(0);
  await page.reload();
  await expect(page.locator('astro-island[ssr]')).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Ajouter un utilisateur' })).toBeVisible();
  await expect(dialog).toHaveCount(0);
  expect(prompts).toEqual(['beforeunload']);

  // Added: nothing kept either.
  await page.getByRole('button', { name: 'Ajouter un utilisateur' }).click();
  await dialog.getByLabel('Nom').fill('Inès Ajoutée');
  await dialog.getByLabel('E-mail professionnel').fill('ines@walk31.fr');
  await dialog.getByRole('button', { name: 'Ajouter' }).click();
  await expect(toasts(page).filter({ hasText: 'Utilisateur ajouté' })).toBeVisible();
  await page.reload();
  await expect(page.locator('astro-island[ssr]')).toHaveCount(0);
  await expect(dialog).toHaveCount(0);
  expect(prompts).toEqual(['beforeunload']);
});
