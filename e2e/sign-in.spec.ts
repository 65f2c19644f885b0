import { allowBrowserErrors, expect, test } from './support/test.ts';
import { accounts, DEMO_PASSWORD, openProfileMenu, roleNames, signIn, signOut } from './support/fixtures.ts';

const tabsByRole = {
  app_admin: ['Ordres de réparation', 'Stock', 'Informations techniques', 'Base symptômes et conditions', 'Utilisateurs', 'Synthèse'],
  diagnostician: ['Ordres de réparation', 'Stock', 'Informations techniques', 'Base symptômes et conditions', 'Synthèse'],
  commercial: ['Ordres de réparation', 'Stock', 'Informations techniques'],
  mechanic: ['Ordres de réparation', 'Informations techniques'],
};

for (const role of roleNames) {
  test(`${accounts[role].label} signs in, sees the shell of the role, and signs out`, async ({ page }) => {
    await signIn(page, accounts[role].email);
    const nav = page.getByRole('navigation', { name: 'Navigation principale' });
    await expect(nav.getByRole('link')).toHaveText(tabsByRole[role]);
    await expect(nav.getByRole('link', { name: 'Ordres de réparation' })).toHaveAttribute('aria-current', 'page');
    await openProfileMenu(page);
    const menu = page.getByRole('group', { name: 'Menu du profil' });
    await expect(menu.getByText(accounts[role].label, { exact: true })).toBeVisible();
    await expect(menu.getByText(accounts[role].email)).toBeVisible();
    await expect(menu.getByText('Actif')).toBeVisible();
    await expect(menu.getByText('••••••••')).toBeVisible();
    await page.getByRole('button', { name: 'Se déconnecter', exact: true }).click();
    await expect(page).toHaveURL(/\/sign-in$/);
    await expect(page.getByRole('status').filter({ hasText: 'Vous êtes déconnecté' })).toBeVisible();
    await page.goto('/repair-orders');
    await expect(page).toHaveURL(/\/sign-in\?redirectTo=/);
  });
}

test('a wrong password gets the French message and keeps the e-mail', async ({ page }) => {
  await page.goto('/sign-in');
  await page.getByLabel('Adresse e-mail').fill('admin@demo.local');
  await page.getByLabel('Mot de passe').fill('pas-le-bon');
  await page.getByRole('button', { name: 'Se connecter', exact: true }).click();
  await expect(page.getByRole('alert').filter({ hasText: 'Identifiant ou mot de passe incorrect' })).toBeVisible();
  await expect(page.getByLabel('Adresse e-mail')).toHaveValue('admin@demo.local');
});

test('a refused sign-in comes back at its own address: a reload sends nothing and still shows the message and the e-mail', async ({ page }) => {
  await page.goto('/sign-in?redirectTo=%2Fstock');
  await page.getByLabel('Adresse e-mail').fill('diagnostic@demo.local');
  await page.getByLabel('Mot de passe').fill('pas-le-bon');
  await page.getByRole('button', { name: 'Se connecter', exact: true }).click();
  const refusal = page.getByRole('alert').filter({ hasText: 'Identifiant ou mot de passe incorrect' });
  await expect(refusal).toBeVisible();
  // The bar holds the page, not the POST (walk31 F4, decision 087).
  await expect(page).toHaveURL(/\/sign-in\?redirectTo=%2Fstock$/);
  // Forms sent (documents posted); the key's autofill fetches its options by itself.
  const posts: string[] = [];
  page.on('request', (request) => {
    if (request.method() === 'POST' && request.resourceType() === 'document') posts.push(request.url());
  });
  await page.reload();
  await expect(refusal).toBeVisible();
  await expect(page.getByLabel('Adresse e-mail')).toHaveValue('diagnostic@demo.local');
  await expect(page.getByLabel('Mot de passe')).toHaveValue('');
  expect(posts).toEqual([]);
  // The target survived the refusal.
  await page.getByLabel('Mot de passe').fill(DEMO_PASSWORD);
  await page.getByRole('button', { name: 'Se connecter', exact: true }).click();
  await expect(page).toHaveURL(/\/stock$/);
  await signOut(page);
});

test('empty fields and a malformed e-mail get the messages of SPEC §5', async ({ page }) => {
  await page.goto('/sign-in');
  await page.getByRole('button', { name: 'Se connecter', exact: true }).click();
  await expect(page.getByText('Champ obligatoire')).toHaveCount(2);
  await page.getByLabel('Adresse e-mail').fill('atelier');
  await page.getByRole('button', { name: 'Se connecter', exact: true }).click();
  await expect(page.getByText('Adresse e-mail invalide')).toBeVisible();
});

test('a bookmarked page comes back after sign-in', async ({ page }) => {
  await page.goto('/gearboxes?type=automatic');
  await expect(page).toHaveURL(/\/sign-in\?redirectTo=/);
  await page.getByLabel('Adresse e-mail').fill('diagnostic@demo.local');
  await page.getByLabel('Mot de passe').fill(DEMO_PASSWORD);
  await page.getByRole('button', { name: 'Se connecter', exact: true }).click();
  await expect(page).toHaveURL(/\/gearboxes\?type=automatic$/);
  await signOut(page);
});

test.describe('without JavaScript', () => {
  test.use({ javaScriptEnabled: false });

  test('signs in and out', async ({ page }) => {
    await signIn(page, 'commercial@demo.local');
    await expect(page.getByRole('heading', { name: 'Ordres de réparation' })).toBeVisible();
    await page.getByLabel('Menu du profil').first().click();
    await page.getByRole('button', { name: 'Se déconnecter', exact: true }).click();
    await expect(page).toHaveURL(/\/sign-in$/);
    await expect(page.getByText('Vous êtes déconnecté')).toBeVisible();
  });

  test('asks for a password reset', async ({ page }) => {
    await page.goto('/sign-in');
    await page.getByRole('link', { name: 'Mot de passe oublié ?' }).click();
    await page.getByLabel('Adresse e-mail').fill('inconnu@demo.local');
    await page.getByRole('button', { name: 'Envoyer le lien' }).click();
    await expect(page.getByRole('status').filter({ hasText: 'Si un compte existe pour cette adresse' })).toBeVisible();
  });
});

test('sign-out in one tab reaches the other tabs', async ({ context }) => {
  const first = await context.newPage();
  await signIn(first, 'admin@demo.local');
  // A live screen leaves by itself; a page without an island at its next request.
  const live = await context.newPage();
  await live.goto('/users');
  await expect(live.getByRole('heading', { name: 'Utilisateurs' })).toBeVisible();
  const still = await context.newPage();
  await still.goto('/gearboxes');
  await expect(still.getByRole('heading', { name: 'Informations techniques' })).toBeVisible();
  // What the page the sign-out lands on says to this browser's other tabs.
  const told = still.evaluate(
    () => new Promise((resolve) => new BroadcastChannel('atelier-session').addEventListener('message', (event) => resolve(event.data), { once: true })),
  );
  // The live screen may learn it first from its socket, closed, and its token refresh refused (401),
  // as in sessions.spec.ts: the browser logs that refusal.
  allowBrowserErrors(/status of 401 .*\/api\/session\/token\)$/);
  await signOut(first);
  expect(await told).toEqual({ type: 'signout' });
  await expect(live).toHaveURL(/\/sign-in/);
  await still.getByRole('link', { name: 'Ordres de réparation' }).first().click();
  await expect(still).toHaveURL(/\/sign-in/);
});
